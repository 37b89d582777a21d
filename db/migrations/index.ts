import { Migration20261122000100 } from './Migration20261122000100.js';
import { Migration20261122000200 } from './Migration20261122000200.js';
import { Migration20261122000300 } from './Migration20261122000300.js';
import { Migration20261122000400 } from './Migration20261122000400.js';
import { Migration20261122000500 } from './Migration20261122000500.js';
import { Migration20261122000600 } from './Migration20261122000600.js';
import { Migration20261122000700 } from './Migration20261122000700.js';
import { Migration20261122000800 } from './Migration20261122000800.js';
import { Migration20261124000100 } from './Migration20261124000100.js';
import { Migration20261124000200 } from './Migration20261124000200.js';
import { Migration20261124000300 } from './Migration20261124000300.js';
import { Migration20261125000100 } from './Migration20261125000100.js';
import { Migration20261125000200 } from './Migration20261125000200.js';
import { Migration20261125000300 } from './Migration20261125000300.js';
import { Migration20261126004100 } from './Migration20261126004100.js';
import { Migration20261126005100 } from './Migration20261126005100.js';
import { Migration20261126006100 } from './Migration20261126006100.js';
import { Migration20261126006200 } from './Migration20261126006200.js';
import { Migration20261126006300 } from './Migration20261126006300.js';
import { Migration20261126110100 } from './Migration20261126110100.js';
import { Migration20261126120100 } from './Migration20261126120100.js';
import { Migration20261126130100 } from './Migration20261126130100.js';

/** Every migration, oldest first; registered explicitly so a bundled build finds them. */
export const migrationsList = [
  { name: 'Migration20261122000100', class: Migration20261122000100 },
  { name: 'Migration20261122000200', class: Migration20261122000200 },
  { name: 'Migration20261122000300', class: Migration20261122000300 },
  { name: 'Migration20261122000400', class: Migration20261122000400 },
  { name: 'Migration20261122000500', class: Migration20261122000500 },
  { name: 'Migration20261122000600', class: Migration20261122000600 },
  { name: 'Migration20261122000700', class: Migration20261122000700 },
  { name: 'Migration20261122000800', class: Migration20261122000800 },
  { name: 'Migration20261124000100', class: Migration20261124000100 },
  { name: 'Migration20261124000200', class: Migration20261124000200 },
  { name: 'Migration20261124000300', class: Migration20261124000300 },
  { name: 'Migration20261125000100', class: Migration20261125000100 },
  { name: 'Migration20261125000200', class: Migration20261125000200 },
  { name: 'Migration20261125000300', class: Migration20261125000300 },
  { name: 'Migration20261126004100', class: Migration20261126004100 },
  { name: 'Migration20261126005100', class: Migration20261126005100 },
  { name: 'Migration20261126006100', class: Migration20261126006100 },
  { name: 'Migration20261126006200', class: Migration20261126006200 },
  { name: 'Migration20261126006300', class: Migration20261126006300 },
  { name: 'Migration20261126110100', class: Migration20261126110100 },
  { name: 'Migration20261126120100', class: Migration20261126120100 },
  { name: 'Migration20261126130100', class: Migration20261126130100 },
];
