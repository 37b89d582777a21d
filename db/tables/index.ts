import { ORDERS } from './orders.js';

/** Every table declared in db/tables/: test/db/tables.test.ts holds each one to the migrated database. */
export const TABLES = [ORDERS];
