// Generators of hostile requests (fast-check): each starts from the valid request of model.ts and
// breaks its path, query, body, headers or key in one of many ways.
import fc from 'fast-check';
import { BAD_IDS, badCursor, CONTENT_TYPES, fieldValue, HUGE, nastyNumber, nastyString, rawBody } from './arbitraries.js';
import {
  formTemplate,
  jsonTemplate,
  knownQuery,
  pathsOf,
  poolFor,
  validKinds,
  type AuthForm,
  type FuzzContext,
  type KeyKind,
  type RequestSpec,
  type Route,
} from './model.js';

const NORMAL_FORMS: AuthForm[] = ['bearer', 'bearer', 'bearer', 'bearer', 'x-api-key', 'bearer-lower', 'bearer-upper', 'bearer-spaces'];
const ODD_FORMS: AuthForm[] = [
  'no-scheme',
  'bearer-only',
  'bearer-empty',
  'basic',
  'duplicate',
  'both-different',
  'long',
  'trailing-garbage',
  'tab',
  'x-api-key-empty',
  'in-query',
];
const ALL_KINDS: KeyKind[] = ['secret', 'publishable', 'connection', 'other', 'revoked', 'none'];

const authArb = (route: Route) =>
  fc.oneof(
    { weight: 17, arbitrary: fc.record({ kind: fc.constantFrom(...validKinds(route.access)), form: fc.constantFrom(...NORMAL_FORMS) }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom(...ALL_KINDS), form: fc.constantFrom(...NORMAL_FORMS, ...ODD_FORMS) }) },
  );

/** The string with lone surrogates replaced (what encodeURIComponent and URLs can carry). */
export const wellFormed = (s: string) => s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

type Body = { payload?: string | Buffer; contentType?: string };

/** Header values as HTTP can carry them (no CR/LF or characters above latin1). */
const headerSafe = (s: string) => s.replace(/[^\x20-\x7e\x80-\xff]/g, '?');

const extraHeadersArb: fc.Arbitrary<Record<string, string | string[]>> = fc
  .record(
    {
      browser: fc.constantFrom('https://shop.example', 'https://evil.example', 'null'),
      accept: fc.constantFrom('*/*', 'text/html', 'application/json', 'application/xml', ''),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', '127.0.0.1, 10.0.0.1', 'garbage', '::1'),
      'x-fuzz-long': fc.constant('a'.repeat(100 * 1024)),
      'accept-language': nastyString.map((s) => headerSafe(s).slice(0, 200)),
      'x-request-id': nastyString.map((s) => headerSafe(s).slice(0, 200)),
      cookie: fc.constantFrom('a=b', '=;=;', 'sc_session=forged.value', 'sc_session=%E0%A4%A', `x=${'y'.repeat(5000)}`),
      referer: fc.constantFrom('https://evil.example/', 'not a url', 'http://127.0.0.1:3999/dashboard'),
      'content-encoding': fc.constantFrom('gzip', 'br', 'identity'),
    },
    { requiredKeys: [] },
  )
  .map(({ browser, ...rest }) => {
    const headers: Record<string, string | string[]> = { ...rest };
    if (browser !== undefined) Object.assign(headers, { origin: browser, 'sec-fetch-mode': 'cors' });
    return headers;
  });

/** A value for a path parameter: usually one that exists, sometimes another store's, a random uuid, or garbage. */
function paramArb(name: string, path: string, ctx: FuzzContext): fc.Arbitrary<string> {
  const pool = poolFor(name, path, ctx);
  const others = path.includes('/products/') ? ctx.otherProductIds : ctx.otherOrderIds;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...pool) },
    { weight: 1, arbitrary: fc.constantFrom(...others) },
    { weight: 2, arbitrary: fc.uuid() },
    { weight: 3, arbitrary: fc.constantFrom(...BAD_IDS) },
    { weight: 2, arbitrary: nastyString.map((s) => encodeURIComponent(wellFormed(s)).slice(0, 6000)) },
  );
}

const RAW_QUERIES = [
  '?limit=1&limit=2',
  '?&&&',
  '?=',
  '?limit',
  '?limit=%',
  '?limit=%E0%A4%A',
  '?a[b][c]=1',
  '?limit[]=5',
  '?__proto__[x]=1',
  '?constructor[prototype][x]=1',
  `?${'a=1&'.repeat(1000)}`,
  '?cursor=a&cursor=b',
  '?include_archived=true&include_archived=false',
  '?status=pending&status=shipped',
  '?api_key=1',
  '?external_id=%ED%A0%80',
  '?status=%00',
  '?order=%FF%FE',
];

function queryArb(route: Route, ctx: FuzzContext): fc.Arbitrary<string> {
  const known = knownQuery(route, ctx);
  const names = Object.keys(known);
  const knownPair = names.length
    ? fc
        .constantFrom(...names)
        .chain((name) =>
          fc
            .oneof(
              { weight: 6, arbitrary: fc.constantFrom(...known[name]!) },
              { weight: 2, arbitrary: nastyString },
              { weight: 1, arbitrary: nastyNumber.map(String) },
              { weight: name === 'cursor' ? 4 : 0, arbitrary: badCursor },
            )
            .map((v) => [name, v] as const),
        )
    : fc.constant(['limit', '10'] as const);
  const oddPair = fc
    .tuple(
      fc.oneof(nastyString, fc.constantFrom('limit[]', 'a[b]', '__proto__', 'constructor[prototype]', '', 'LIMIT', 'Limit')),
      nastyString,
    )
    .map(([k, v]) => [k, v] as const);
  const encode = (s: string) => encodeURIComponent(wellFormed(s));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    {
      weight: 8,
      arbitrary: fc
        .array(knownPair, { minLength: 1, maxLength: 4 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(fc.oneof(knownPair, oddPair), { minLength: 1, maxLength: 4 })
        .map((pairs) => `?${pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&')}`),
    },
    { weight: 2, arbitrary: fc.constantFrom(...RAW_QUERIES) },
  );
}

type Mutation = { op: 'set' | 'delete' | 'extra' | 'null' | 'stringify' | 'wrap'; at: number; key: string; value: unknown };
const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('set', 'set', 'set', 'delete', 'extra', 'null', 'stringify', 'wrap'),
  at: fc.nat(),
  key: fc.oneof(
    nastyString.map((s) => s.slice(0, 100)),
    fc.constantFrom('__proto__', 'constructor', 'id', 'store_id', 'source', 'object', 'price', 'admin'),
  ),
  value: fieldValue,
});

/** Applies mutations to a deep copy; a path that a previous mutation removed is simply skipped. */
function mutate(template: Record<string, unknown>, mutations: Mutation[]): unknown {
  let root: unknown = structuredClone(template);
  for (const mutation of mutations) {
    // Values may be shared between samples (the 500-level one is a constant): never link them into the body.
    const m = { ...mutation, value: structuredClone(mutation.value) };
    const paths = pathsOf(root);
    const path = paths[m.at % paths.length]!;
    if (path.length === 0) {
      if (m.op === 'extra' && root && typeof root === 'object')
        Object.defineProperty(root, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      else if (m.op === 'set' || m.op === 'null') root = m.op === 'null' ? null : m.value;
      continue;
    }
    const parent = path.slice(0, -1).reduce<any>((o, k) => (o == null ? o : o[k]), root);
    if (parent == null || typeof parent !== 'object') continue;
    const last = path.at(-1)!;
    switch (m.op) {
      case 'set':
        parent[last] = m.value;
        break;
      case 'null':
        parent[last] = null;
        break;
      case 'delete':
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
        break;
      case 'stringify':
        parent[last] = JSON.stringify(parent[last]) ?? 'undefined';
        break;
      case 'wrap':
        parent[last] = [parent[last]];
        break;
      case 'extra': {
        const target = parent[last];
        if (target && typeof target === 'object' && !Array.isArray(target))
          Object.defineProperty(target, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
        else parent[last] = { [m.key]: m.value };
      }
    }
  }
  return root;
}

const describeBody = (payload: string | Buffer | undefined) =>
  payload === undefined ? '(none)' : `${payload.length} bytes: ${String(payload).slice(0, 160).replace(/\s+/g, ' ')}`;

/** JSON body: the valid one, mutated ones, a wrong type as a whole, or raw bytes; with a Content-Type of some form. */
function jsonBodyArb(route: Route, ctx: FuzzContext): fc.Arbitrary<Body> {
  const template = (n: number) => jsonTemplate(route, ctx, n) ?? {};
  const body = fc.oneof(
    { weight: 4, arbitrary: fc.nat().map((n) => JSON.stringify(template(n))) },
    {
      weight: 10,
      arbitrary: fc
        .tuple(fc.nat(), fc.array(mutationArb, { minLength: 1, maxLength: 4 }))
        .map(([n, ms]) => JSON.stringify(mutate(template(n), ms)) ?? 'null'),
    },
    { weight: 1, arbitrary: fieldValue.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: fc.nat().map((n) => JSON.stringify({ ...template(n), pad: HUGE.repeat(11) })) },
    { weight: 2, arbitrary: rawBody },
  );
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  return fc.oneof({ weight: 20, arbitrary: fc.record({ payload: body, contentType }) }, { weight: 1, arbitrary: fc.constant({}) });
}

/** Form body of a page: the valid one, mutated fields, duplicates, or something that is not a form at all. */
function formBodyArb(route: Route, ctx: FuzzContext): fc.Arbitrary<Body> {
  const template = formTemplate(route, ctx);
  const names = Object.keys(template);
  const field = fc.tuple(
    fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: nastyString.map((s) => s.slice(0, 60)) }),
    nastyString,
  );
  const form = fc.oneof(
    { weight: 3, arbitrary: fc.constant(new URLSearchParams(template).toString()) },
    {
      weight: 8,
      arbitrary: fc.tuple(fc.array(field, { maxLength: 4 }), fc.subarray(names)).map(([changes, dropped]) => {
        const params = new URLSearchParams(Object.entries(template).filter(([k]) => !dropped.includes(k)));
        for (const [k, v] of changes) params.append(wellFormed(k), wellFormed(v));
        return params.toString();
      }),
    },
    { weight: 1, arbitrary: fc.constantFrom('a=%', '%%%', '&&&', '=', `x=${'y'.repeat(70_000)}`, 'name=%E0%A4%A', '_csrf=&_csrf=x') },
  );
  return fc.oneof(
    {
      weight: 10,
      arbitrary: fc.record({
        payload: form,
        contentType: fc.constantFrom(
          'application/x-www-form-urlencoded',
          'application/x-www-form-urlencoded; charset=UTF-8',
          'APPLICATION/X-WWW-FORM-URLENCODED',
        ),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        payload: fc.oneof(
          rawBody,
          fieldValue.map((v) => JSON.stringify(v) ?? 'null'),
        ),
        contentType: fc.constantFrom(...CONTENT_TYPES),
      }),
    },
    { weight: 1, arbitrary: fc.constant({}) },
  );
}

/** The generator of requests for one route. */
export function requestArb(route: Route, ctx: FuzzContext): fc.Arbitrary<RequestSpec> {
  const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = fc.tuple(...names.map((n) => paramArb(n, route.path, ctx)));
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.method) || (route.wrongMethod && route.method === 'DELETE');
  const body: fc.Arbitrary<Body> = hasBody
    ? route.api
      ? jsonBodyArb(route, ctx)
      : formBodyArb(route, ctx)
    : fc.oneof(
        { weight: 12, arbitrary: fc.constant<Body>({}) },
        { weight: 1, arbitrary: fc.record<Body>({ payload: rawBody, contentType: fc.constantFrom(...CONTENT_TYPES) }) },
      );
  const session =
    route.path.startsWith('/dashboard') || route.path.startsWith('/connect/')
      ? fc.constantFrom('valid', 'valid', 'valid', 'none', 'forged')
      : fc.constant('none');
  return fc
    .record({
      params,
      query: queryArb(route, ctx),
      body,
      auth: route.api ? authArb(route) : fc.constant({ kind: 'none' as KeyKind, form: 'bearer' as AuthForm }),
      extra: fc.oneof({ weight: 4, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: extraHeadersArb }),
      session,
    })
    .map(({ params: values, query, body: b, auth, extra, session: s }) => {
      let i = 0;
      const path = route.path.replace(/:(\w+)/g, () => values[i++]!);
      const headers: Record<string, string | string[]> = { ...extra };
      if (b.contentType !== undefined && b.payload !== undefined) headers['content-type'] = b.contentType;
      if (s !== 'none' && ctx.dashboard) {
        const cookie = s === 'valid' ? ctx.dashboard.sessionCookie : 'sc_session=forged.token';
        headers.cookie = typeof headers.cookie === 'string' ? `${cookie}; ${headers.cookie}` : cookie;
      }
      return {
        route: `${route.wrongMethod ? '(wrong method) ' : ''}${route.method} ${route.path}`,
        method: route.method,
        url: path + query,
        api: route.api,
        auth,
        headers,
        ...(b.payload !== undefined ? { payload: b.payload } : {}),
        bodyNote: describeBody(b.payload),
      } satisfies RequestSpec;
    });
}
