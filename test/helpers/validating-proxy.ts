// A validating proxy on loopback: forwards every request to the service and checks each answer against the
// service's own OpenAPI document (the documented status, the JSON Schema of its body, the common headers, and
// the error envelope for every error whatever layer produced it). Used instead of an external mock server.
import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;
const DOC_ID = 'https://doc.invalid/openapi.json';
const EVERY_RESPONSE_HEADERS = ['x-request-id', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'cache-control'];

export interface Exchange {
  method: string;
  url: string;
  status: number;
  /** The documented operation (`GET /orders/{id}`), or undefined for a path the document does not know. */
  operation: string | undefined;
  problems: string[];
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Validates answers against one OpenAPI 3.1 document. */
export function createResponseChecker(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...doc, $id: DOC_ID });
  const compiled = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let v = compiled.get(ref);
    if (!v) compiled.set(ref, (v = ajv.compile({ $ref: `${DOC_ID}#${ref}` })));
    return v;
  };
  const basePath = new URL(doc.servers[0].url).pathname.replace(/\/$/, '');
  const routes = Object.entries(doc.paths as Json).map(([template, item]) => ({
    template,
    item: item as Json,
    pattern: new RegExp(`^${basePath}${template.replace(/\{\w+\}/g, '[^/]+')}$`),
  }));

  /** The problems of one answer (an empty list when it agrees with the document). */
  return function check(method: string, url: string, status: number, headers: IncomingHttpHeaders, body: string) {
    const problems: string[] = [];
    const path = url.split('?')[0]!;
    const route = routes.find((r) => r.pattern.test(path) && r.item[method.toLowerCase()]);
    const operation = route ? `${method} ${route.template}` : undefined;
    const json = (() => {
      try {
        return JSON.parse(body) as unknown;
      } catch {
        return undefined;
      }
    })();
    for (const h of EVERY_RESPONSE_HEADERS) if (headers[h] === undefined) problems.push(`header ${h} missing`);
    if (status === 429 && !/^\d+$/.test(String(headers['retry-after']))) problems.push('429 without an integer Retry-After');
    if (status >= 400) {
      // Every error, documented operation or not: the envelope, its request_id repeating X-Request-Id.
      const envelope = validator('/components/schemas/Error');
      if (!envelope(json)) problems.push(`error body is not the envelope: ${JSON.stringify(envelope.errors)} ${body.slice(0, 200)}`);
      else if ((json as Json).error.request_id !== headers['x-request-id']) problems.push('error.request_id differs from X-Request-Id');
    }
    if (!route) return { operation, problems };
    const op = route.item[method.toLowerCase()] as Json;
    if (!op.responses[String(status)]) {
      problems.push(`status ${status} is not documented for ${operation}`);
      return { operation, problems };
    }
    const schemaRef = pointer(
      'paths',
      route.template,
      method.toLowerCase(),
      'responses',
      String(status),
      'content',
      'application/json',
      'schema',
    );
    if (!String(headers['content-type']).startsWith('application/json')) problems.push(`content-type ${headers['content-type']}`);
    const validate = validator(`/${schemaRef}`);
    if (!validate(json)) problems.push(`body disagrees with the document: ${JSON.stringify(validate.errors).slice(0, 600)}`);
    return { operation, problems };
  };
}

/** Starts the proxy in front of `target` (an http://127.0.0.1:port origin); every exchange is recorded with its problems. */
export async function startValidatingProxy(target: string, doc: Json) {
  const check = createResponseChecker(doc);
  const exchanges: Exchange[] = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (c: Buffer) => chunks.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(chunks);
          const status = answer.statusCode ?? 0;
          const { operation, problems } = check(req.method ?? '', req.url ?? '', status, answer.headers, body.toString('utf8'));
          exchanges.push({ method: req.method ?? '', url: req.url ?? '', status, operation, problems });
          const headers = { ...answer.headers };
          delete headers['transfer-encoding'];
          delete headers['connection'];
          res.writeHead(status, headers).end(body);
        });
      },
    );
    upstream.on('error', (err) => res.writeHead(502).end(String(err)));
    req.pipe(upstream);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const port = (server.address() as { port: number }).port;
  return {
    /** The API base through the proxy. */
    baseUrl: `http://127.0.0.1:${port}${new URL(doc.servers[0].url).pathname.replace(/\/$/, '')}`,
    origin: `http://127.0.0.1:${port}`,
    exchanges,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}
