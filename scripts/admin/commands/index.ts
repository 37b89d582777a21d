import type { Command } from '../command.js';
import { connectionCommands } from './connections.js';
import { keyCommands } from './key.js';
import { listCommands } from './lists.js';
import { migrateCommands } from './migrate.js';
import { orderCommands } from './orders.js';
import { outboxCommands } from './outbox.js';
import { ownerCommands } from './owners.js';
import { productCommands } from './products.js';
import { secretsCommands } from './secrets.js';
import { storeCommands } from './store.js';
import { webhookCommands } from './webhooks.js';

/** Every operator command; a new group is one module and one line here. */
export const commands: readonly Command[] = [
  ...storeCommands,
  ...listCommands,
  ...keyCommands,
  ...orderCommands,
  ...connectionCommands,
  ...webhookCommands,
  ...productCommands,
  ...ownerCommands,
  ...outboxCommands,
  ...secretsCommands,
  ...migrateCommands,
];
