import { ApiKey } from './api-key.js';
import { OutboxMessage } from './outbox-message.js';
import { Store } from './store.js';

/** Every entity, listed explicitly (no glob discovery). */
export const entities = [Store, ApiKey, OutboxMessage];
export { ApiKey, OutboxMessage, Store };
