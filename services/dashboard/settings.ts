import type { EntityManager } from '@mikro-orm/postgresql';
import { executeBound } from '../../db/bound.js';
import { ApiError } from '../../contract/errors.js';
import { timeZoneName } from '../../domain/display.js';
import { toNumericString, toUnits } from '../../domain/money.js';
import { STORE_MODES, type StoreMode, type StorePlan } from '../../domain/store.js';

export interface StoreSettings {
  name: string;
  currency: string;
  mode: StoreMode;
  published: boolean;
  standardDeliveryFee: string;
  /** An IANA time zone, canonical (domain/display.ts timeZoneName). */
  timeZone: string;
}

/** Clean settings, or every field's problem in words (keyed by the form field). */
export type SettingsCheck = { ok: true; settings: StoreSettings } | { ok: false; problems: Record<string, string> };

/**
 * Reads and checks the settings form, every field at once. The plan is the operator's (`store plan`):
 * a form asking for another plan than `currentPlan` is refused, never saved.
 */
export function checkSettings(form: URLSearchParams, currentPlan: StorePlan): SettingsCheck {
  const problems: Record<string, string> = {};
  const asked = form.get('plan');
  if (asked !== null && asked !== currentPlan)
    problems.plan = 'The plan cannot be changed here: ask the operator of this service to change it.';
  const name = (form.get('name') ?? '').trim();
  const currency = (form.get('currency') ?? '').trim().toUpperCase();
  const mode = form.get('mode') as StoreMode;
  if (!name || name.length > 120) problems.name = 'The store name must have 1 to 120 characters.';
  if (!/^[A-Z]{3}$/.test(currency)) problems.currency = 'The currency must be a three-letter code such as USD or EUR.';
  if (!STORE_MODES.includes(mode)) problems.mode = 'Pick a mode.';
  let fee = 0n;
  try {
    fee = toUnits(form.get('standard_delivery_fee')?.trim() || '0');
    if (fee < 0n || fee > toUnits('1000000')) problems.standard_delivery_fee = 'The standard delivery fee must be between 0 and 1,000,000.';
  } catch {
    problems.standard_delivery_fee = 'The standard delivery fee must be an amount such as 4.99.';
  }
  const timeZone = timeZoneName((form.get('time_zone') ?? '').trim() || 'UTC');
  if (!timeZone) problems.time_zone = 'The time zone must be an IANA name such as Africa/Casablanca, Europe/Paris or UTC.';
  if (Object.keys(problems).length || !timeZone) return { ok: false, problems };
  return {
    ok: true,
    settings: { name, currency, mode, published: form.get('published') === 'on', standardDeliveryFee: toNumericString(fee), timeZone },
  };
}

/** checkSettings for callers that want one error: the first bad field is an ApiError naming it. */
export function parseSettings(form: URLSearchParams, currentPlan: StorePlan): StoreSettings {
  const checked = checkSettings(form, currentPlan);
  if (checked.ok) return checked.settings;
  const [param, message] = Object.entries(checked.problems)[0]!;
  throw new ApiError('invalid_request', message, param);
}

/** Saves a store's settings (never its plan, which only the operator sets). */
export async function saveStoreSettings(em: EntityManager, storeId: string, s: StoreSettings): Promise<void> {
  await executeBound(
    em,
    `update stores set name = ?, currency = ?, mode = ?, published = ?, standard_delivery_fee = ?::numeric, time_zone = ?, updated_at = now() where id = ?`,
    [s.name, s.currency, s.mode, s.published, s.standardDeliveryFee, s.timeZone, storeId],
  );
}
