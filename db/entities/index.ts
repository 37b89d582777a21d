import { ApiKey } from './api-key.js';
import { Store } from './store.js';

/** Every entity, listed explicitly (no glob discovery). */
export const entities = [Store, ApiKey];
export { ApiKey, Store };
