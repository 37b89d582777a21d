import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OrderSource } from './order-status.js';

/** Orders copied from an outside platform need the shopper's contact before anything is shown (spec GET /tracking). */
export const contactRequired = (source: OrderSource): boolean => source === 'platform_a' || source === 'platform_b';

/** The key of a typed order number: trimmed, one leading '#' dropped, so "#1001" and "1001" are one order number. */
export function orderNumberKey(typed: string): string {
  const trimmed = typed.trim();
  return trimmed.startsWith('#') ? trimmed.slice(1).trim() : trimmed;
}

/** The stored order numbers a key stands for: with and without the leading '#'. */
export const orderNumberVariants = (key: string): [string, string] => [key, `#${key}`];

/**
 * The lockout key of an order number, typed or stored: every leading '#' and space dropped. Whatever
 * spelling reaches an order ("1001", "#1001", "##1001" for a stored "#1001"), the typed text and every
 * order it matches (orderNumberVariants of its orderNumberKey) have this same key, so one lock covers them all.
 */
export const orderNumberLockKey = (text: string): string => text.replace(/^[#\s]+/, '').trim();

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
// Compared against when the order has no phone or no email: equal to no real digest.
const ABSENT = randomBytes(32);

const digitsOf = (text: string) => text.replace(/\D+/g, '');

/** How a given contact is compared: an email (it has an '@') trimmed and lower-cased, otherwise its digits only. */
function givenForm(contact: string): string {
  const text = contact.trim();
  return text.includes('@') ? `email:${text.toLowerCase()}` : `phone:${digitsOf(text)}`;
}

/** What the order accepts: the last 4 digits of its phone and its email, as digests (ABSENT when missing). */
function expectedForms(phone: string | null, email: string | null): [Buffer, Buffer] {
  const digits = phone ? digitsOf(phone) : '';
  const mail = email?.trim().toLowerCase() ?? '';
  return [digits.length >= 4 ? digest(`phone:${digits.slice(-4)}`) : ABSENT, mail ? digest(`email:${mail}`) : ABSENT];
}

/**
 * True when the contact is the last 4 digits of the phone (digits only: "56-78" matches "+212 6-12-34-56-78")
 * or the email (case-insensitive, trimmed). Fixed-length digests compared with timingSafeEqual, both always
 * compared: the time taken does not depend on how close a guess was.
 */
export function contactMatches(contact: string, phone: string | null, email: string | null): boolean {
  const given = digest(givenForm(contact));
  const [byPhone, byEmail] = expectedForms(phone, email);
  // Bitwise or: both comparisons run whatever the first one says.
  return (Number(timingSafeEqual(given, byPhone)) | Number(timingSafeEqual(given, byEmail))) === 1;
}
