// The cart page's delivery form: what a shopper must give for a cash-on-delivery order, with messages for people.
import { cleanMultiline, cleanText } from './text.js';

export const SHOPPER_FIELDS = ['name', 'phone', 'address', 'city', 'country', 'note'] as const;
export type ShopperField = (typeof SHOPPER_FIELDS)[number];

/** The cleaned form: plain text (tags removed, whitespace tidied); note may be null. */
export interface Shopper {
  name: string;
  phone: string;
  address: string;
  city: string;
  country: string;
  note: string | null;
}

export type ShopperFormResult =
  { ok: true; shopper: Shopper } | { ok: false; errors: Partial<Record<ShopperField, string>>; values: Record<ShopperField, string> };

const LIMITS: Record<ShopperField, number> = { name: 200, phone: 40, address: 500, city: 200, country: 100, note: 2000 };
const MISSING: Record<Exclude<ShopperField, 'note'>, string> = {
  name: 'Enter your name.',
  phone: 'Enter a phone number the courier can call.',
  address: 'Enter the delivery address (street and number).',
  city: 'Enter the city.',
  country: 'Enter the country.',
};
const PHONE_CHARS = /^\+?[0-9\s().-]+$/;

/** Validates the posted form; every problem comes back at once, with the values as typed (to show them again). */
export function validateShopperForm(body: Record<string, unknown>): ShopperFormResult {
  const values = Object.fromEntries(SHOPPER_FIELDS.map((f) => [f, typeof body[f] === 'string' ? (body[f] as string) : ''])) as Record<
    ShopperField,
    string
  >;
  const errors: Partial<Record<ShopperField, string>> = {};
  const cleaned = {} as Record<ShopperField, string | null>;
  for (const field of SHOPPER_FIELDS) {
    const raw = values[field];
    cleaned[field] = (field === 'note' ? cleanMultiline(raw) : cleanText(raw)) ?? null;
    if (raw.length > LIMITS[field] * 2 || (cleaned[field]?.length ?? 0) > LIMITS[field]) {
      errors[field] = `Use at most ${LIMITS[field]} characters.`;
    } else if (field !== 'note' && !cleaned[field]) {
      errors[field] = MISSING[field];
    }
  }
  const phone = cleaned.phone;
  if (!errors.phone && phone) {
    const digits = phone.replace(/\D/g, '').length;
    if (!PHONE_CHARS.test(phone) || digits < 6 || digits > 15)
      errors.phone = 'Enter a phone number of 6 to 15 digits, such as +212 612 345 678.';
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  const { name, address, city, country, note } = cleaned;
  return { ok: true, shopper: { name: name!, phone: phone!, address: address!, city: city!, country: country!, note } };
}
