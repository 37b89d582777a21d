// Hostile values for the request fuzz: wrong types, huge and odd strings, deep nesting, bad ids and cursors.
import fc from 'fast-check';

/** 100 KB of text, the "huge string" of the battery. */
export const HUGE = 'x'.repeat(100 * 1024);

/** Builds a value nested `depth` levels deep (arrays and objects alternating). */
export function deeplyNested(depth: number, leaf: unknown = 1): unknown {
  let value: unknown = leaf;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Strings that broke services before: NUL, lone surrogates, bidi controls, BOM, injections, lookalikes. */
export const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\udc00\ud800',
  '\u202eevil\u202c',
  '\u200f\u200e',
  'مرحبا بالعالم',
  'שלום',
  '𝕏𝕐𝕫',
  '👩‍👩‍👧‍👦',
  '\ufeffbom',
  '\r\n\t\v\f',
  '\u0085\u2028\u2029',
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "' or 1=1 --",
  "'; drop table orders; --",
  '%00',
  '%',
  '%E0%A4%A',
  '../../etc/passwd',
  '..%2F..%2F',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '__proto__',
  'constructor',
  'null',
  'true',
  'undefined',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '0x1F',
  '9'.repeat(400),
  'ß'.repeat(300),
  'Ω'.repeat(5000),
  'a'.repeat(256),
  'svc_live_sk_',
  'Bearer',
  'http://',
  'javascript:alert(1)',
  'data:text/html,<b>x</b>',
  'https://user:pass@[::1]:99999/x',
  '2026-13-45T25:61:61Z',
  '0000-00-00T00:00:00Z',
];

/** Any UTF-16 code unit: NUL, controls and lone surrogates included. */
const unit16 = fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n));

export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 40 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: unit16, maxLength: 40 }), weight: 3 },
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 6 },
  { arbitrary: fc.constant(HUGE), weight: 1 },
);

export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    1e-7,
    0.12345,
    1e21,
    1e308,
    -1e308,
    2 ** 53 + 1,
    Number.MAX_SAFE_INTEGER,
    99_999_999_999.9999,
    100_000_000_000,
  ),
);

/** Any JSON value, a few levels deep, with hostile leaves. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    nastyNumber,
    nastyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      nastyString.filter((k) => k.length < 50),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** A value for a field: mostly hostile scalars, sometimes structures, 500-level nesting, or huge arrays. */
export const fieldValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: anyJson, weight: 10 },
  { arbitrary: fc.constant(deeplyNested(500)), weight: 1 },
  { arbitrary: fc.constant(Array.from({ length: 5000 }, (_, i) => i)), weight: 1 },
  { arbitrary: fc.constant({}), weight: 1 },
  { arbitrary: fc.constant([]), weight: 1 },
);

/** Ids that are not ids of anything: malformed, borderline and encoded forms. */
export const BAD_IDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '7C9E6679-7425-40DE-944B-E07FC1F90AE7',
  '{7c9e6679-7425-40de-944b-e07fc1f90ae7}',
  '7c9e6679742540de944be07fc1f90ae7',
  '7c9e6679-7425-40de-944b-e07fc1f90ae',
  '7c9e6679-7425-40de-944b-e07fc1f90ae7x',
  '7c9e6679-7425-40de-944b-e07fc1f90ae7%20',
  '%20',
  '0',
  '-1',
  '1e9',
  '..',
  '.',
  '%2e%2e',
  '%2F',
  '%00',
  '%E0%A4%A',
  '%C0%AF',
  '%F0%9F%98%80',
  'null',
  'undefined',
  '__proto__',
  'a'.repeat(5000),
  '%ED%A0%80',
  encodeURIComponent('<script>'),
  encodeURIComponent("' or 1=1 --"),
  encodeURIComponent('\u202e'),
];

/** Cursors that were never handed out: garbage, wrong base64, base64 of odd JSON. */
export const badCursor: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'x', '====', 'e30', 'bnVsbA', 'W10', 'eyJ0IjoiMjAyNiJ9', '!!!', 'a'.repeat(3000)),
  nastyString,
  anyJson.map((v) => Buffer.from(JSON.stringify(v) ?? 'null').toString('base64url')),
  fc.tuple(nastyString, nastyString).map(([a, b]) => Buffer.from(`${a}|${b}`).toString('base64url')),
);

/** Raw bodies that are not the JSON of an object (or not JSON at all). */
export const rawBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    '}',
    '[]',
    '""',
    'null',
    '0',
    'true',
    '\u0000',
    '\ufeff{}',
    '{"a":1,"a":2}',
    '{"__proto__":{"polluted":true},"external_id":"p","totals":{"total":1}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"external_id":"x","totals":{"total":1e999}}',
    '{"external_id":"x","totals":{"total":-0}}',
    '{"external_id":"\\ud800","totals":{"total":1}}',
    '{"external_id":"\\u0000","totals":{"total":1}}',
    `{"x":${'['.repeat(500)}${']'.repeat(500)}}`,
    `${'['.repeat(5000)}${']'.repeat(5000)}`,
    `{"s":"${HUGE}"}`,
    'external_id=1&totals=2',
  ),
  fc.uint8Array({ maxLength: 64 }).map((a) => Buffer.from(a)),
  fc.string({ unit: unit16, maxLength: 60 }),
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-8',
  'APPLICATION/JSON',
  'Application/Json; Charset="utf-8"',
  'application/json;charset=latin1',
  'application/json; charset=utf-16le',
  'application/json; boundary=x',
  'application/json, text/plain',
  ' application/json',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'text/plain',
  'text/html; charset=utf-8',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  '*/*',
  '',
];
