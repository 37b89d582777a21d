import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../../contract/errors.js';

// A UTF-16 surrogate without its partner: not a character, and not storable (PostgreSQL refuses it in jsonb).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
// Order inputs clean their own text (spec: "Text fields are cleaned"; NUL included, see domain/text.ts)
// order by order, so one bad order never fails a batch: their NULs are removed, not refused.
const CLEANS_OWN_TEXT = new Set(['POST /api/v1/orders', 'POST /api/v1/orders/batch']);

/**
 * Walks a parsed request value (iteratively: deep nesting cannot exhaust the stack), replacing lone
 * surrogates with U+FFFD (as any UTF-8 encoder does) and, with `stripNul`, removing NUL characters.
 * Returns the new value and the dotted path of the first NUL left in it (null when none).
 */
export function cleanRequestText(value: unknown, stripNul: boolean): { value: unknown; nulAt: string | null } {
  const fix = (s: string) => {
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
  const stack: [unknown, string][] = [[value, '']];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    const at = (key: string) => (path ? `${path}.${key}` : key);
    if (v instanceof URLSearchParams) {
      // Form fields are well-formed already (USVString); only NUL can be in them.
      for (const [key, text] of v) if (hasNul(key + text)) nulAt = at(key.replaceAll('\u0000', ''));
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        if (typeof v[i] === 'string') {
          if (hasNul((v[i] = fix(v[i])))) nulAt = at(String(i));
        } else if (v[i] !== null && typeof v[i] === 'object') stack.push([v[i], at(String(i))]);
      }
    } else if (v !== null && typeof v === 'object') {
      const record = v as Record<string, unknown>;
      for (const key of Object.keys(record)) {
        let item = record[key];
        const fixedKey = fix(key);
        if (typeof item === 'string') item = fix(item);
        if (fixedKey !== key) {
          delete record[key];
          Object.defineProperty(record, fixedKey, { value: item, enumerable: true, writable: true, configurable: true });
        } else record[key] = item;
        if (hasNul(fixedKey)) nulAt = at(fixedKey.replaceAll('\u0000', ''));
        if (typeof item === 'string') {
          if (hasNul(item)) nulAt = at(fixedKey);
        } else if (item !== null && typeof item === 'object') stack.push([item, at(fixedKey)]);
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
