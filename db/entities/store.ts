import { defineEntity, p } from '@mikro-orm/postgresql';
import type { EntityRow } from '../tables/entity-row.js';

import { STORE_MODES, STORE_PLANS } from '../../domain/store.js';

const StoreSchema = defineEntity({
  name: 'Store',
  tableName: 'stores',
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    slug: p.text().unique(),
    currency: p.text(),
    mode: p.enum(STORE_MODES),
    plan: p.enum(STORE_PLANS),
    /** When a paid plan ends (null: it does not); kept after the fall back to free. Read through domain/plan.ts effectivePlan. */
    paidUntil: p.datetime().nullable(),
    published: p.boolean(),
    /** Charged when a product's delivery_fee is null. */
    standardDeliveryFee: p.decimal('string').precision(14).scale(4),
    /** The IANA time zone the dashboard shows times in (domain/display.ts). */
    timeZone: p.text().default('UTC'),
    /** The next native order's number: hand-written SQL takes it (`update … returning`); the ORM never writes it. */
    nextOrderNumber: p.bigint('string').defaultRaw('1001'),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onUpdate(() => new Date()),
  },
});

export class Store extends StoreSchema.class {}
StoreSchema.setClass(Store);

/** A stores row as hand-written SQL reads it (snake_case; numeric and bigint as text, timestamptz as Date or text). */
export type StoreRow = EntityRow<Store>;
