import { defineEntity, p } from '@mikro-orm/postgresql';

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
    standardDeliveryFee: p.decimal('string'),
    /** The IANA time zone the dashboard shows times in (domain/display.ts). */
    timeZone: p.text().default('UTC'),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p
      .datetime()
      .defaultRaw('now()')
      .onUpdate(() => new Date()),
  },
});

export class Store extends StoreSchema.class {}
StoreSchema.setClass(Store);
