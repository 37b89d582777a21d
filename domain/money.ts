// Exact decimal money: amounts are bigint counts of 10^-4 of the currency's major unit.
// Floats never take part in arithmetic; numbers are read and written via their decimal string.

export const MONEY_SCALE = 4;

/**
 * Largest magnitude accepted, in units: 99,999,999,999.9999. Fifteen significant digits is what
 * a JSON number (a double) carries exactly, and it fits a numeric(15,4) column.
 */
export const MAX_MONEY_UNITS = 10n ** 15n - 1n;

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i;
// What nearly every amount looks like (String(19.99) is "19.99"): no sign, no exponent, at most 11 whole
// digits and 4 decimals, so always in range. Read as one bigint without DECIMAL's general steps (a
// 200-item order reads 400 amounts per request).
const PLAIN = /^(\d{1,11})(?:\.(\d{1,4}))?$/;

/** Exact units for a decimal number or string; RangeError for NaN, Infinity, > 4 decimals or out of range. */
export function toUnits(value: number | string): bigint {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new RangeError('amount must be a finite number');
  // String(n) is the shortest decimal that reads back as the same double: 19.99 → "19.99".
  const text = typeof value === 'number' ? String(value) : value.trim();
  const plain = PLAIN.exec(text);
  if (plain) return BigInt(plain[1]! + (plain[2] ?? '').padEnd(MONEY_SCALE, '0'));
  const match = DECIMAL.exec(text);
  const [, sign = '', intPart = '', fracPart = '', expPart] = match ?? [];
  if (!match || intPart + fracPart === '') throw new RangeError(`amount "${text.slice(0, 40)}" is not a decimal number`);
  let digits = (intPart + fracPart).replace(/^0+/, '');
  if (digits === '') return 0n;
  // Position of the decimal point relative to the end of `digits`, after scaling to units.
  let shift = (expPart === undefined ? 0 : Number(expPart)) - fracPart.length + MONEY_SCALE;
  if (shift < 0) {
    // Digits below 10^-4 are only allowed when they are zeros (e.g. "19.990000" from a database).
    const dropped = digits.slice(shift);
    if (/[1-9]/.test(dropped)) throw new RangeError(`amount "${text.slice(0, 40)}" has more than ${MONEY_SCALE} decimals`);
    digits = digits.slice(0, shift) || '0';
    shift = 0;
  }
  // Checked before building the bigint so "1e999999" cannot make a huge number.
  if (digits.length + shift > String(MAX_MONEY_UNITS).length) throw outOfRange(text);
  const units = BigInt(digits) * 10n ** BigInt(shift);
  if (units > MAX_MONEY_UNITS) throw outOfRange(text);
  return sign === '-' ? -units : units;
}

/**
 * True when toUnits would read the amount (at most 4 decimals, within range): the check of every amount an
 * input carries. A plain one (PLAIN) is answered without building the bigint: a 200-item order has 200 prices.
 */
export function isMoneyAmount(value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (PLAIN.test(String(value))) return true;
  try {
    toUnits(value);
    return true;
  } catch {
    return false;
  }
}

function outOfRange(text: string): RangeError {
  return new RangeError(`amount "${text.slice(0, 40)}" is out of range`);
}

function split(units: bigint): { sign: string; whole: string; fraction: string } {
  // The digits of the units with the point put in as text: no bigint division per amount.
  const digits = String(units < 0n ? -units : units).padStart(MONEY_SCALE + 1, '0');
  return {
    sign: units < 0n ? '-' : '',
    whole: digits.slice(0, -MONEY_SCALE),
    fraction: digits.slice(-MONEY_SCALE),
  };
}

/** A plain JSON number for units; exact (shortest form, e.g. 19.99) within MAX_MONEY_UNITS. */
export function fromUnits(units: bigint): number {
  const { sign, whole, fraction } = split(units);
  const trimmed = fraction.replace(/0+$/, '');
  return Number(`${sign}${whole}${trimmed ? `.${trimmed}` : ''}`);
}

/** The units as a PostgreSQL numeric literal with exactly four decimals, e.g. '19.9900'. */
export function toNumericString(units: bigint): string {
  const { sign, whole, fraction } = split(units);
  return `${sign}${whole}.${fraction}`;
}

/**
 * A numeric text within MAX_MONEY_UNITS ('19.9900') as the JSON number fromUnits gives (19.99): at most 15
 * significant digits, which a double and its shortest form carry exactly, so jsonb stores the same decimal.
 */
export const amountAsJson = (numericText: string): number => Number(numericText);

/**
 * toNumericString(toUnits(value)) without the bigint for a plain amount (PLAIN: "19.99" → '19.9900'), the
 * same text: a 200-item order writes 400 amounts. Other amounts take toUnits' way and its errors.
 */
export function toNumericText(value: number | string): string {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  const plain = PLAIN.exec(text);
  // Leading zeros ("007") would not be the text toNumericString gives: those go the long way.
  if (plain && (plain[1]!.length === 1 || plain[1]![0] !== '0')) return `${plain[1]}.${(plain[2] ?? '').padEnd(MONEY_SCALE, '0')}`;
  return toNumericString(toUnits(value));
}

/** Exact sum; zero for no arguments. */
export function addMoney(...amounts: bigint[]): bigint {
  return amounts.reduce((sum, a) => sum + a, 0n);
}

/** Exact product of an amount and a whole quantity; RangeError when the quantity is not a safe integer. */
export function mulMoney(units: bigint, quantity: number): bigint {
  if (!Number.isSafeInteger(quantity)) throw new RangeError('quantity must be a whole number');
  return units * BigInt(quantity);
}

/** The largest of the amounts. */
export function maxMoney(first: bigint, ...rest: bigint[]): bigint {
  return rest.reduce((max, a) => (a > max ? a : max), first);
}

/** An amount for people, exact: at least 2 decimals, up to 4 when they matter, thousands grouped ("1,234.50 USD"). */
export function formatMoney(units: bigint, currency: string): string {
  const [whole = '0', fraction = ''] = toNumericString(units).split('.');
  const sign = whole.startsWith('-') ? '-' : '';
  const grouped = whole.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}.${fraction.replace(/0{1,2}$/, '').padEnd(2, '0')} ${currency}`;
}
