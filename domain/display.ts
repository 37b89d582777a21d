// How the dashboard shows values to people: amounts in the store's currency, ids in words, moments in the
// store's time zone. Pure functions over Intl; no arithmetic on amounts.
import { STATUS_LABELS } from './tracking-progress.js';
import type { OrderStatus } from './order-status.js';

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * An amount in the store's currency ("MAD 59.97", "€5.00"), formatted from its decimal text: Intl reads a
 * string as an exact decimal, so no float takes part. An amount that is not a decimal is shown as it is.
 */
export function formatAmount(amount: string | number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined || amount === '') return '—';
  const text = String(amount);
  if (!/^-?\d+(\.\d+)?$/.test(text)) return `${text} ${currency}`;
  let format = moneyFormats.get(currency);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en', { style: 'currency', currency, maximumFractionDigits: 4 });
    } catch {
      return `${text} ${currency}`;
    }
    moneyFormats.set(currency, format);
  }
  // A string is an exact decimal to Intl.NumberFormat (ES2023); the cast is for TypeScript's older signature.
  return format.format(text as unknown as number);
}

/** An id of the API's vocabulary in words: `out_for_delivery` → "Out for delivery"; order statuses as shoppers read them. */
export function inWords(id: string | null | undefined): string {
  if (!id) return '—';
  const label = STATUS_LABELS[id as OrderStatus];
  if (label) return label;
  const words = id.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The IANA time zone's canonical name when this runtime knows it (`utc` → `UTC`, `Africa/Casablanca`); null otherwise. */
export function timeZoneName(name: string): string | null {
  if (!name || name.length > 64) return null;
  try {
    return new Intl.DateTimeFormat('en', { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const timeFormats = new Map<string, Intl.DateTimeFormat>();

/** A moment as people read it in the store's time zone ("2026-11-25 14:05 Africa/Casablanca"); an em dash for none. */
export function formatMoment(value: Date | string | null | undefined, timeZone = 'UTC'): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  let format = timeFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    timeFormats.set(timeZone, format);
  }
  const part = Object.fromEntries(format.formatToParts(date).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute} ${timeZone}`;
}
