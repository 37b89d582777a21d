import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { ENDPOINTS, type Access, type Endpoint } from '../../api/access.js';
import { ERROR_CODES } from '../../contract/errors.js';
import { SCOPES } from '../../domain/scopes.js';
import { PLATFORM_A_STATUS_MAP, PLATFORM_B_STATUS_MAP, SERVICE_STATUS_MAP } from '../../domain/order-status.js';
import { createHash } from 'node:crypto';
import { renderPlainDocsPage } from '../../api/docs-plain-page.js';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

type Json = Record<string, any>;
let t: TestApp;
let s: TestStore;
let doc: Json;
let built: [Endpoint, Access][];
beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm);
  doc = (await t.request({ method: 'GET', url: '/api/v1/openapi.json' })).json();
  built = (Object.entries(ENDPOINTS) as [Endpoint, Access][]).filter(([e]) => {
    const [method, path] = e.split(' ') as [string, string];
    return t.app.hasRoute({ method: method as 'GET', url: `/api/v1${path.replace(/\{(\w+)\}/g, ':$1')}` });
  });
});
afterAll(() => t.close());

/** Follows a local $ref (#/components/...) to what it names. */
const resolve = (node: Json): Json =>
  node?.$ref
    ? resolve(
        node.$ref
          .slice(2)
          .split('/')
          .reduce((n: Json, k: string) => n[k], doc),
      )
    : node;
const operation = (endpoint: Endpoint) => {
  const [method, path] = endpoint.split(' ') as [string, string];
  return doc.paths?.[path]?.[method.toLowerCase()] as Json | undefined;
};

describe('GET /openapi.json serves an OpenAPI 3.1 description without a key', () => {
  it('answers 200 with JSON and no key', async () => {
    const res = await t.request({ method: 'GET', url: '/api/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('is a valid OpenAPI 3.1 document according to a standard validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names the server address {base_url} ending in /api/v1', () => {
    expect(doc.servers).toEqual([{ url: t.config.baseUrl }]);
    expect(t.config.baseUrl).toMatch(/\/api\/v1$/);
  });

  it('is also reachable at /openapi.json, by a redirect', async () => {
    const res = await t.request({ method: 'GET', url: '/openapi.json' });
    expect([301, 302, 307, 308]).toContain(res.statusCode);
    expect(res.headers.location).toBe('/api/v1/openapi.json');
  });
});

describe('the document mirrors the endpoint table', () => {
  it('describes every built route, including GET /openapi.json itself', () => {
    expect(built.map(([e]) => e)).toContain('GET /openapi.json');
    for (const [endpoint] of built) expect(operation(endpoint), endpoint).toBeDefined();
  });

  it('describes nothing that is not in the endpoint table', () => {
    const documented = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const e of documented) expect(Object.keys(ENDPOINTS), e).toContain(e);
  });

  it('gives every operation a unique operationId and a summary', () => {
    const ids = built.map(([e]) => operation(e)!.operationId);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [e] of built) expect(operation(e)!.summary, e).toBeTruthy();
  });
});

describe('the document is one a client generator can trust', () => {
  it('declares every tag an operation uses, each with a description, and names a license', () => {
    const declared = new Map((doc.tags as Json[]).map((tag) => [tag.name, tag.description]));
    for (const [endpoint] of built) {
      for (const tag of operation(endpoint)!.tags as string[]) expect(declared.get(tag), `${endpoint}: tag ${tag}`).toBeTruthy();
    }
    expect(doc.info.license?.name).toBeTruthy();
  });

  /** A JSON Schema validator of one component schema, its $refs resolved in the document. */
  const conformsTo = (name: string) => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    ajv.addSchema({ ...doc, $id: 'https://doc.invalid/openapi.json' });
    return ajv.compile({ $ref: `https://doc.invalid/openapi.json#/components/schemas/${name}` });
  };

  it('documents what the service answers: a skipped upsert has order null', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/v1/orders',
      headers: bearer(s.secret),
      payload: { external_id: 'doc-skip', totals: { total: 1 }, test: true },
    });
    expect(res.json()).toMatchObject({ order: null, action: 'skipped' });
    const check = conformsTo('UpsertResult');
    expect(check(res.json()), JSON.stringify(check.errors)).toBe(true);
  });

  it('accepts a batch body with one invalid element, as the service does (answered per item)', async () => {
    const body = { orders: [{ external_id: 'doc-ok', totals: { total: 1 } }, { totals: 'nope' }] };
    const res = await t.request({ method: 'POST', url: '/api/v1/orders/batch', headers: bearer(s.secret), payload: body });
    expect(res.statusCode).toBe(200);
    expect(res.json().results.map((r: Json) => r.ok)).toEqual([true, false]);
    for (const [schema, value] of [
      ['OrderBatch', body],
      ['ExternalProductBatch', { products: [{ external_id: 'p', name: 'P' }, 7] }],
    ] as const) {
      const check = conformsTo(schema);
      expect(check(value), `${schema}: ${JSON.stringify(check.errors)}`).toBe(true);
    }
  });
});

describe('security: the two ways of sending a key, on every keyed operation', () => {
  it('declares Authorization: Bearer and the X-Api-Key header as security schemes', () => {
    const schemes = Object.values(doc.components.securitySchemes as Json);
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(schemes).toContainEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-Api-Key' }));
    expect(schemes.some((x) => x.in === 'query')).toBe(false);
  });

  it('puts security on every operation of a keyed route, naming declared schemes only', () => {
    for (const [e, access] of built.filter(([, a]) => a.keys !== 'none')) {
      const security = operation(e)!.security as Json[];
      expect(security?.length, e).toBeGreaterThan(0);
      for (const requirement of security)
        for (const name of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(name);
      expect(operation(e)!.description, e).toContain(access.permission ?? 'Key:');
    }
  });

  it('marks keyless routes as needing no key', () => {
    for (const [e] of built.filter(([, a]) => a.keys === 'none')) expect(operation(e)!.security, e).toEqual([]);
  });
});

describe('every error response is documented with the Error envelope', () => {
  it('the Error schema is the envelope with the fixed list of codes and an example', () => {
    const error = doc.components.schemas.Error as Json;
    expect(error.required).toEqual(['error']);
    expect(error.properties.error.required).toEqual(['code', 'message', 'request_id']);
    expect(error.properties.error.properties.code.enum).toEqual(ERROR_CODES);
    expect(error.properties.error.properties).toHaveProperty('param');
    expect(error.example ?? error.examples).toBeDefined();
  });

  it('keyed operations document 400, 401, 403, 429 and 500 with the Error schema; keyless ones 400, 429 and 500', () => {
    for (const [e, access] of built) {
      const statuses = access.keys === 'none' ? ['400', '429', '500', '503'] : ['400', '401', '403', '429', '500', '503'];
      for (const status of statuses) {
        const response = resolve(operation(e)!.responses[status]);
        expect(response, `${e} ${status}`).toBeDefined();
        expect(response.content['application/json'].schema, `${e} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });

  it('operations with a request body document 413', () => {
    for (const [e] of built.filter(([e]) => operation(e)!.requestBody)) expect(operation(e)!.responses, e).toHaveProperty('413');
  });

  it('every response documents X-Request-Id, X-RateLimit-* and Cache-Control; 429 also Retry-After', () => {
    for (const [e] of built) {
      for (const [status, r] of Object.entries(operation(e)!.responses as Json)) {
        const headers = resolve(r).headers as Json;
        for (const h of ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Cache-Control']) {
          expect(resolve(headers?.[h])?.schema, `${e} ${status} ${h}`).toBeDefined();
        }
        if (status === '429') expect(resolve(headers['Retry-After']).schema.type).toBe('integer');
      }
    }
  });
});

describe('GET /me is documented by the schema that shapes its answer', () => {
  it('its 200 response is StoreInfo with the fields the route returns', async () => {
    const schema = resolve(operation('GET /me')!.responses['200'].content['application/json'].schema);
    const body = (await t.request({ method: 'GET', url: '/api/v1/me', headers: bearer(s.secret) })).json();
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(body).sort());
    expect(schema.required.sort()).toEqual(['api_version', 'key', 'limits', 'store']);
    expect(Object.keys(schema.properties.store.properties).sort()).toEqual(Object.keys(body.store).sort());
    expect(schema.properties.key.properties.scopes.items.enum).toEqual([...SCOPES]);
    expect(schema.properties.api_version.enum ?? [schema.properties.api_version.const]).toEqual(['v1']);
  });
});

describe('GET /docs shows the rendered reference (Redoc), self-contained', () => {
  const scripts = (html: string) => [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attrs: m[1]!, body: m[2]! }));

  it('answers 200 HTML, without a key, with the live document inline and Redoc started on it', async () => {
    const res = await t.request({ method: 'GET', url: '/docs' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const data = scripts(res.body).find((x) => x.attrs.includes('application/json'))!;
    const inline = JSON.parse(data.body) as Json;
    expect(inline.info).toEqual(doc.info);
    expect(Object.keys(inline.paths as Json)).toEqual(Object.keys(doc.paths as Json));
    expect(Object.keys(inline.components.schemas as Json)).toEqual(Object.keys(doc.components.schemas as Json));
    expect(res.body).toContain('Redoc.init(');
    expect(res.body).toContain('href="/api/v1/openapi.json"');
  });

  it('loads no script from anywhere: its own CSP allows exactly its inline scripts, by hash', async () => {
    const res = await t.request({ method: 'GET', url: '/docs' });
    const all = scripts(res.body);
    expect(all.every((x) => !/\bsrc\s*=/.test(x.attrs))).toBe(true);
    expect(res.body).not.toMatch(/<link|<iframe/i);
    const run = all.filter((x) => !x.attrs.includes('application/json'));
    expect(run).toHaveLength(2);
    const csp = String(res.headers['content-security-policy']);
    const hashes = run.map((x) => `'sha256-${createHash('sha256').update(x.body, 'utf8').digest('base64')}'`);
    expect(csp).toContain(`script-src ${hashes.join(' ')};`);
    expect(csp).toMatch(/^default-src 'none';/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toMatch(/unsafe-eval|https?:|\*/);
  });

  it('without the Redoc bundle, the plain page lists every operation and loads no script', () => {
    const html = renderPlainDocsPage(doc as unknown as Parameters<typeof renderPlainDocsPage>[0]);
    for (const [e] of built) {
      const [method, path] = e.split(' ') as [string, string];
      expect(html, e).toContain(`>${method}</span> <code>${path}</code>`);
      expect(html).toContain(`id="${operation(e)!.operationId}"`);
    }
    expect(html).not.toMatch(/<script|<link|<iframe|src=/i);
  });
});

describe('the document states the rules the service checks', () => {
  it('every parameter has a description', () => {
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, op] of Object.entries(item as Json))
        for (const p of (op as Json).parameters ?? []) expect(p.description, `${method} ${path} ${p.in} ${p.name}`).toBeTruthy();
  });

  it('the input order status lists, per status_kind, exactly what the service interprets', () => {
    const status = doc.components.schemas.OrderInput.properties.status as Json;
    const byKind = status['x-status-by-kind'] as Record<string, string[]>;
    expect(byKind.platform_b).toEqual(Object.keys(PLATFORM_B_STATUS_MAP));
    expect(byKind.service).toEqual(Object.keys(SERVICE_STATUS_MAP));
    for (const slug of Object.keys(PLATFORM_A_STATUS_MAP)) expect(byKind.platform_a).toEqual(expect.arrayContaining([slug, `wc-${slug}`]));
    // No enum: a shop's custom platform status is accepted (docs/orders.md), so a validating client must not refuse it.
    expect(status.enum).toBeUndefined();
    expect(status.description).toContain('a platform_a or platform_b status the mapping does not know');
    for (const kind of ['platform_a', 'platform_b', 'service']) expect(status.description).toContain(`${kind}:`);
  });

  it('webhook url, site_url and push_url are URIs with their rule; an external product price is at least 0', () => {
    const schemas = doc.components.schemas as Json;
    for (const [schema, field] of [
      ['WebhookCreate', 'url'],
      ['ConnectExchange', 'site_url'],
      ['ConnectionHeartbeat', 'site_url'],
      ['ConnectionHeartbeat', 'push_url'],
    ] as const) {
      expect(schemas[schema].properties[field].format, `${schema}.${field}`).toBe('uri');
      expect(schemas[schema].properties[field].description, `${schema}.${field}`).toBeTruthy();
    }
    expect(schemas.ExternalProductInput.properties.price.minimum).toBe(0);
  });
});
