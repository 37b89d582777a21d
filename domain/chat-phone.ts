/**
 * The shopper's phone as the chat API's `to`: E.164 digits without the '+', or null when the number is
 * not written in international form ('+' or '00' then the country code). A local number ("0612…") is
 * not guessed into one: the country code is not ours to assume.
 */
export function e164Digits(phone: string | null | undefined): string | null {
  if (!phone) return null;
  const compact = phone.trim().replace(/[\s\-().\u00a0]/g, '');
  const match = /^(?:\+|00)([1-9]\d{7,14})$/.exec(compact);
  return match ? match[1]! : null;
}
