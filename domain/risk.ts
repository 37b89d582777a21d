// Risk of a cash-on-delivery order: signs that the parcel may travel for nothing.
// The full metadata set ("max") is used because only it checks a number against the country's
// real numbering plan; the smaller sets check the length alone.
import {
  getCountries,
  getCountryCallingCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  type CountryCode,
} from 'libphonenumber-js/max';

/** The spec's risk levels, lowest first; a flag's severity is one of them too. */
export const RISK_LEVELS = ['medium', 'high'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];
export type RiskSeverity = RiskLevel;

/** Every flag code, its label (shown to the seller) and its severity; flags are reported in this order. */
export const RISK_FLAGS = {
  phone_invalid: { label: 'Phone number missing or not valid for the delivery country', severity: 'high' },
  address_incomplete: { label: 'Delivery address or city missing', severity: 'medium' },
  first_order_high_total: { label: 'First order from this phone number, with a high total', severity: 'medium' },
  previous_cancellations: { label: 'This phone number has cancelled orders before', severity: 'high' },
} as const satisfies Record<string, { label: string; severity: RiskSeverity }>;
export type RiskFlagCode = keyof typeof RISK_FLAGS;

/**
 * Total (major units) above which a first order from a phone number is flagged. Currency-agnostic
 * on purpose: a simple heuristic, not a converted amount.
 */
export const FIRST_ORDER_HIGH_TOTAL = 200;

/** Orders of this many flags or more are high risk whatever their severities. */
export const HIGH_RISK_FLAG_COUNT = 3;

export type RiskInput = {
  isCod: boolean;
  phone?: string | null | undefined;
  /** ISO 3166 alpha-2 code or a country name; anything unrecognised counts as unknown. */
  country?: string | null | undefined;
  address?: string | null | undefined;
  city?: string | null | undefined;
  total: number;
  /** Not used yet: the threshold is currency-agnostic. */
  currency?: string | null | undefined;
  /** Earlier orders of this store with the same phone (see phoneKey), not counting this one. */
  history: { ordersWithPhone: number; cancelledWithPhone: number };
};

export type RiskAssessment = { level: RiskLevel; flags: { code: RiskFlagCode; label: string }[] };

const NAME_LOCALES = ['en', 'fr', 'es', 'de', 'it', 'pt', 'nl', 'ar'];
const NAME_ALIASES: Record<string, CountryCode> = {
  uk: 'GB',
  usa: 'US',
  uae: 'AE',
  'united states of america': 'US',
  'great britain': 'GB',
  'ivory coast': 'CI',
};
let countryNames: Map<string, CountryCode> | undefined;

function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}]+/gu, ' ')
    .trim();
}

// Built on first use from the runtime's own country names, so "Maroc" and "Morocco" both resolve.
function namesIndex(): Map<string, CountryCode> {
  if (countryNames) return countryNames;
  countryNames = new Map(Object.entries(NAME_ALIASES));
  for (const locale of NAME_LOCALES) {
    const names = new Intl.DisplayNames([locale], { type: 'region', fallback: 'none' });
    for (const code of getCountries()) {
      const name = names.of(code);
      if (name && !countryNames.has(nameKey(name))) countryNames.set(nameKey(name), code);
    }
  }
  return countryNames;
}

/** The country code for an ISO alpha-2 code or a country name, or undefined when not recognised. */
export function resolveCountry(country: string | null | undefined): CountryCode | undefined {
  const text = country?.trim() ?? '';
  if (text === '') return undefined;
  if (/^[a-z]{2}$/i.test(text)) {
    const code = text.toUpperCase() === 'UK' ? 'GB' : text.toUpperCase();
    return isSupportedCountry(code) ? code : undefined;
  }
  return namesIndex().get(nameKey(text));
}

function digitsOf(phone: string): string {
  return phone.replace(/\D/g, '');
}

/** True when a courier in the order's country can call the number: valid and on the country's calling code. */
export function isPhoneValidFor(phone: string | null | undefined, country: string | null | undefined): boolean {
  const text = phone?.trim() ?? '';
  if (text === '') return false;
  const code = resolveCountry(country);
  const parsed = parsePhoneNumberFromString(text, code);
  // Calling code rather than region: +1 covers the US and Canada, +212 Morocco and Western Sahara.
  if (code) return !!parsed && parsed.isValid() && parsed.countryCallingCode === getCountryCallingCode(code);
  if (parsed) return parsed.isValid();
  // A national number with no known country cannot be checked; only reject what is no phone at all.
  const digits = digitsOf(text);
  return /^[\d\s().+-]+$/.test(text) && digits.length >= 6 && digits.length <= 15;
}

/** The key to count a phone's earlier orders by: E.164 when valid, else its digits; null without digits. */
export function phoneKey(phone: string | null | undefined, country: string | null | undefined): string | null {
  const text = phone?.trim() ?? '';
  if (text === '') return null;
  // Every write of an order computes it, and a store's updates re-send the same phone: parsing it is the
  // dearest step of reading an order (~20 µs), so recent answers are kept.
  const memoKey = `${country ?? ''}\u0000${text}`;
  const known = recentPhoneKeys.get(memoKey);
  if (known !== undefined) return known;
  const parsed = parsePhoneNumberFromString(text, resolveCountry(country));
  const digits = digitsOf(text);
  const key = parsed?.isValid() ? parsed.number : digits === '' ? null : digits;
  if (recentPhoneKeys.size >= RECENT_PHONE_KEYS) recentPhoneKeys.clear();
  recentPhoneKeys.set(memoKey, key);
  return key;
}

/** Bounds the memo of phoneKey (a few MB at most): emptied whole when full, which is rare and cheap. */
const RECENT_PHONE_KEYS = 10_000;
const recentPhoneKeys = new Map<string, string | null>();

/** null unless the order is cash on delivery and at least one flag applies; flags in RISK_FLAGS order. */
export function assessCodRisk(input: RiskInput): RiskAssessment | null {
  if (!input.isCod) return null;
  const hasPhone = (input.phone?.trim() ?? '') !== '';
  const raised: Record<RiskFlagCode, boolean> = {
    phone_invalid: !isPhoneValidFor(input.phone, input.country),
    address_incomplete: !input.address?.trim() || !input.city?.trim(),
    // Without a phone there is no history to speak of; phone_invalid already says it.
    first_order_high_total: hasPhone && input.history.ordersWithPhone === 0 && input.total > FIRST_ORDER_HIGH_TOTAL,
    previous_cancellations: hasPhone && input.history.cancelledWithPhone > 0,
  };
  const codes = (Object.keys(RISK_FLAGS) as RiskFlagCode[]).filter((code) => raised[code]);
  if (codes.length === 0) return null;
  const high = codes.length >= HIGH_RISK_FLAG_COUNT || codes.some((code) => RISK_FLAGS[code].severity === 'high');
  return { level: high ? 'high' : 'medium', flags: codes.map((code) => ({ code, label: RISK_FLAGS[code].label })) };
}
