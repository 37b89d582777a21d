import { writeTransaction } from '../../db/transaction.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import type { StoreMode, StorePlan } from '../../domain/store.js';
import { effectivePlan } from '../../domain/plan.js';
import { isUuid } from '../../domain/uuid.js';
import { ApiError } from '../../contract/errors.js';
import { createStore, type NewStore } from '../stores.js';

export interface OwnedStore {
  id: string;
  name: string;
  slug: string;
  currency: string;
  mode: StoreMode;
  /** The plan in force now (domain/plan.ts effectivePlan): free once a paid plan's end has passed. */
  plan: StorePlan;
  /** When the paid plan ends or ended (set by the operator); null when it does not end. */
  paid_until: Date | null;
  published: boolean;
  standard_delivery_fee: string;
  /** The IANA time zone the dashboard shows this store's times in. */
  time_zone: string;
  role: 'owner';
}

const COLUMNS = `s.id, s.name, s.slug, s.currency, s.mode, s.plan, s.paid_until, s.published, s.standard_delivery_fee::text as standard_delivery_fee, s.time_zone, m.role`;

/** The stores this owner may manage, by name. */
export async function listOwnedStores(em: EntityManager, ownerId: string): Promise<OwnedStore[]> {
  const rows = await executeBound<OwnedStore>(
    em,
    `select ${COLUMNS} from owner_stores m join stores s on s.id = m.store_id where m.owner_id = ? order by lower(s.name), s.id`,
    [ownerId],
  );
  return rows.map(withPlanInForce);
}

/** The store when this owner is a member of it; null for another owner's store, an unknown or a malformed id alike. */
export async function findOwnedStore(em: EntityManager, ownerId: string, storeId: string): Promise<OwnedStore | null> {
  if (!isUuid(storeId)) return null;
  const [row] = await executeBound<OwnedStore>(
    em,
    `select ${COLUMNS} from owner_stores m join stores s on s.id = m.store_id where m.owner_id = ? and m.store_id = ?`,
    [ownerId, storeId],
  );
  return row ? withPlanInForce(row) : null;
}

// The driver gives timestamptz as text here: paid_until becomes a Date, and plan the plan in force.
const withPlanInForce = (row: OwnedStore): OwnedStore => ({
  ...row,
  plan: effectivePlan({ plan: row.plan, paidUntil: row.paid_until }),
  paid_until: row.paid_until === null ? null : new Date(row.paid_until),
});

/**
 * Stores one account may own when it creates them itself (dashboard, connect page): each store has its
 * own outbound budget, so stores without end would be budgets without end for one account. An operator
 * can still make an account owner of more (`owner add`).
 */
export const STORES_PER_ACCOUNT = 20;

/**
 * Creates a store owned by this owner, store and membership together or not at all; refused (conflict)
 * when the owner already has STORES_PER_ACCOUNT stores, counted under the owner's lock so a burst stops at it.
 */
export async function createOwnedStore(em: EntityManager, ownerId: string, input: NewStore): Promise<string> {
  return writeTransaction(em, async (tx) => {
    await executeBound(tx, `select pg_advisory_xact_lock(hashtextextended('owned-stores:' || ?::text, 0))`, [ownerId]);
    const [owned] = await executeBound<{ n: number }>(tx, `select count(*)::int as n from owner_stores where owner_id = ?`, [ownerId]);
    if (owned!.n >= STORES_PER_ACCOUNT)
      throw new ApiError(
        'conflict',
        `An account can have at most ${STORES_PER_ACCOUNT} stores, and yours has ${owned!.n}. Ask the operator if you need more.`,
      );
    const store = await createStore(tx, input);
    await executeBound(tx, `insert into owner_stores (owner_id, store_id, role) values (?, ?, 'owner')`, [ownerId, store.id]);
    return store.id;
  });
}

/** Makes an account an owner of a store (idempotent). */
export async function addOwnerToStore(em: EntityManager, ownerId: string, storeId: string): Promise<void> {
  await executeBound(em, `insert into owner_stores (owner_id, store_id, role) values (?, ?, 'owner') on conflict do nothing`, [
    ownerId,
    storeId,
  ]);
}
