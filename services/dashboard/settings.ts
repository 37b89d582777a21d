import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError } from '../../contract/errors.js';
import { toNumericString, toUnits } from '../../domain/money.js';
import { STORE_MODES, type StoreMode, type StorePlan } from '../../domain/store.js';

export interface StoreSettings {
  name: string;
  currency: string;
  mode: StoreMode;
  published: boolean;
  standardDeliveryFee: string;
}

const refuse = (message: string, param: string) => new ApiError('invalid_request', message, param);

/**
 * Reads and checks the settings form into clean settings; the first problem is an ApiError in words,
 * naming the field. The plan is the operator's (`store plan`): a form asking for another plan than
 * `currentPlan` is refused, never saved.
 */
export function parseSettings(form: URLSearchParams, currentPlan: StorePlan): StoreSettings {
  const asked = form.get('plan');
  if (asked !== null && asked !== currentPlan)
    throw refuse('The plan cannot be changed here: ask the operator of this service to change it.', 'plan');
  const name = (form.get('name') ?? '').trim();
  const currency = (form.get('currency') ?? '').trim().toUpperCase();
  const mode = form.get('mode') as StoreMode;
  if (!name || name.length > 120) throw refuse('The store name must have 1 to 120 characters.', 'name');
  if (!/^[A-Z]{3}$/.test(currency)) throw refuse('The currency must be a three-letter code such as USD or EUR.', 'currency');
  if (!STORE_MODES.includes(mode)) throw refuse('Pick a mode.', 'mode');
  let fee: bigint;
  try {
    fee = toUnits(form.get('standard_delivery_fee')?.trim() || '0');
  } catch {
    throw refuse('The standard delivery fee must be an amount such as 4.99.', 'standard_delivery_fee');
  }
  if (fee < 0n || fee > toUnits('1000000'))
    throw refuse('The standard delivery fee must be between 0 and 1,000,000.', 'standard_delivery_fee');
  return { name, currency, mode, published: form.get('published') === 'on', standardDeliveryFee: toNumericString(fee) };
}

/** Saves a store's settings (never its plan, which only the operator sets). */
export async function saveStoreSettings(em: EntityManager, storeId: string, s: StoreSettings): Promise<void> {
  await em.execute(
    `update stores set name = ?, currency = ?, mode = ?, published = ?, standard_delivery_fee = ?::numeric, updated_at = now() where id = ?`,
    [s.name, s.currency, s.mode, s.published, s.standardDeliveryFee, storeId],
  );
}
