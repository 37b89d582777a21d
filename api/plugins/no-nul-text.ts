import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../contract/errors.js';

// A UTF-16 surrogate without its partner: not a character, and not storable (PostgreSQL refuses it in jsonb).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Order inputs clean their own text (spec: "Text fields are cleaned"; NUL included, see domain/text.ts)
// order by order, so one bad order never fails a batch: their NULs are removed, not refused.
// String.prototype.isWellFormed (ES2024, Node 20+): not in the ES2023 library this project compiles against.
type WellFormedCheck = string & { isWellFormed(): boolean };
const CLEANS_OWN_TEXT = new Set(['POST /api/v1/orders', 'POST /api/v1/orders/batch']);

/**
 * Walks a parsed request value (iteratively: deep nesting cannot exhaust the stack), replacing lone
 * surrogates with U+FFFD (as any UTF-8 encoder does) and, with `stripNul`, removing NUL characters.
 * Returns the new value and the dotted path of the first NUL left in it (null when none).
 */
export function cleanRequestText(value: unknown, stripNul: boolean): { value: unknown; nulAt: string | null } {
  const fix = (s: string) => {
    // Almost all text is well-formed and NUL-free: two native scans instead of a regular expression's replace.
    if ((s as WellFormedCheck).isWellFormed() && !(stripNul && s.includes('\u0000'))) return s;
    const wellFormed = s.replace(LONE_SURROGATE, '\ufffd');
    return stripNul ? wellFormed.replaceAll('\u0000', '') : wellFormed;
  };
  let nulAt: string | null = null;
  // Most text has no NUL: the path is only spelled out for the first one found (no string per field).
  const hasNul = (s: string) => nulAt === null && s.includes('\u0000');
  if (typeof value === 'string') {
    const fixed = fix(value);
    if (hasNul(fixed)) nulAt = '';
    return { value: fixed, nulAt };
  }
  // A container and where it sits; its dotted path is spelled out only when a NUL is found in it.
  interface Place {
    value: unknown;
    parent: Place | null;
    key: string;
  }
  const pathOf = (place: Place, key: string): string => {
    const keys = [key];
    for (let p: Place | null = place; p && p.parent; p = p.parent) keys.push(p.key);
    return keys.reverse().join('.');
  };
  const stack: Place[] = [{ value, parent: null, key: '' }];
  while (stack.length) {
    const place = stack.pop()!;
    const v = place.value;
    if (v instanceof URLSearchParams) {
      // Form fields are well-formed already (USVString); only NUL can be in them.
      for (const [key, text] of v) if (hasNul(key + text)) nulAt = pathOf(place, key.replaceAll('\u0000', ''));
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        const item: unknown = v[i];
        if (typeof item === 'string') {
          const fixed = fix(item);
          if (fixed !== item) v[i] = fixed;
          if (hasNul(fixed)) nulAt = pathOf(place, String(i));
        } else if (item !== null && typeof item === 'object') stack.push({ value: item, parent: place, key: String(i) });
      }
    } else if (v !== null && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        const original = record[key];
        const item = typeof original === 'string' ? fix(original) : original;
        const fixedKey = fix(key);
        if (fixedKey !== key) {
          delete record[key];
          Object.defineProperty(record, fixedKey, { value: item, enumerable: true, writable: true, configurable: true });
        } else if (item !== original) record[key] = item;
        if (hasNul(fixedKey)) nulAt = pathOf(place, fixedKey.replaceAll('\u0000', ''));
        if (typeof item === 'string') {
          if (hasNul(item)) nulAt = pathOf(place, fixedKey);
        } else if (item !== null && typeof item === 'object') stack.push({ value: item, parent: place, key: fixedKey });
      }
    }
  }
  return { value, nulAt };
}

/**
 * Makes every request's text storable before validation: lone surrogates become U+FFFD in the path
 * parameters, query and body; a NUL character (which PostgreSQL can neither store nor compare) is
 * refused with 400 naming the field, except in order inputs, whose text cleaning removes it.
 */
export const noNulText = fp(async (app: FastifyInstance) => {
  app.addHook('preValidation', async (request) => {
    const stripNul = CLEANS_OWN_TEXT.has(`${request.method} ${request.routeOptions.url ?? ''}`);
    const parts = [
      ['params', request.params, false],
      ['query', request.query, false],
      ['body', request.body, stripNul],
    ] as const;
    for (const [name, part, strip] of parts) {
      if (part === undefined || part === null) continue;
      const { value, nulAt } = cleanRequestText(part, strip);
      if (name === 'body' && value !== part) request.body = value;
      if (nulAt !== null)
        throw new ApiError(
          'invalid_request',
          `${nulAt ? `${nulAt}: ` : ''}text may not contain the NUL character (\\u0000).`,
          nulAt || undefined,
        );
    }
  });
});
