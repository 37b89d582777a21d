import { Migration20261122000100 } from './Migration20261122000100.js';
import { Migration20261122000200 } from './Migration20261122000200.js';

/** Every migration, oldest first; registered explicitly so a bundled build finds them. */
export const migrationsList = [
  { name: 'Migration20261122000100', class: Migration20261122000100 },
  { name: 'Migration20261122000200', class: Migration20261122000200 },
];
