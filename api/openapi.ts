import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { ErrorBody } from '../contract/schemas/common.js';
import { UpdateAck, UpdateList } from '../contract/schemas/connections.js';
import { WebhookDelivery } from '../contract/schemas/webhooks.js';
import type { Access } from './access.js';
import { ERROR_STATUS, type ErrorCode } from '../contract/errors.js';

const ERROR_TEXT: Record<ErrorCode, string> = {
  invalid_request: 'Malformed request or bad field value; param names the field.',
  unauthorized: 'Key missing, wrong or revoked.',
  forbidden: 'Wrong kind of key, missing permission, secret key from a browser, or publishable key from a website not on its list.',
  not_found: 'No such resource in this store.',
  conflict: 'Clash with the current state.',
  payload_too_large: 'Body over 1 MB.',
  unprocessable: 'Well formed but cannot be carried out.',
  rate_limited: 'Over the rate limit; Retry-After gives the seconds to wait.',
  internal_error: 'Failure on the service side.',
  unavailable: 'A backing service is briefly unavailable; retry shortly.',
};

const KEY_WORDS: Record<Access['keys'], string> = {
  any: 'Any valid key.',
  secret: 'A secret key (secret, legacy or connection key).',
  secret_or_publishable: 'A secret or a publishable key.',
  connection: 'A connection key only.',
  none: 'No key.',
};

/** The operations' groups, in the order the reference shows them. */
export const TAGS = {
  Store: 'The store a key belongs to: the first call of an integration.',
  Orders: 'Order exchange: create or update by external id, list, read, change status and tracking, archive.',
  Catalogue: "The store's own products and categories, as the storefront shows them.",
  Checkout: "Checkout sessions: a cart on the service's own page, priced and checked by the service.",
  Tracking: 'Order tracking by order number, with the contact check for outside orders.',
  Webhooks: 'Outbound webhook endpoints: signed, one attempt per event.',
  'External products': "A connected shop's own products, kept apart from the catalogue.",
  Connection: 'The plugin side of a connected shop: exchange, heartbeat, updates pulled and acknowledged, disconnect.',
  Service: 'About the service itself.',
} as const;
export type Tag = keyof typeof TAGS;

/** The headers spec point 4 puts on every response; documented once under components/headers. */
const COMMON_HEADERS = {
  'X-Request-Id': { schema: { type: 'string' as const }, description: 'Identifies this request; quote it to support.' },
  'X-RateLimit-Limit': { schema: { type: 'integer' as const }, description: 'Requests allowed per minute.' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' as const }, description: 'Requests left in the current minute.' },
  'X-RateLimit-Reset': { schema: { type: 'integer' as const }, description: 'Unix seconds when the minute ends.' },
  'Cache-Control': { schema: { type: 'string' as const, const: 'no-store' }, description: 'Always no-store.' },
  'Retry-After': { schema: { type: 'integer' as const, minimum: 1 }, description: 'Seconds to wait before retrying.' },
};
type HeaderName = keyof typeof COMMON_HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const EVERY_RESPONSE: HeaderName[] = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Cache-Control'];
const rateHeaders = headerRefs(EVERY_RESPONSE);

/** Builds the OpenAPI registry of one app: security schemes and shared components. */
export function createOpenApiRegistry() {
  const registry = new OpenAPIRegistry();
  registry.register('Error', ErrorBody);
  for (const [name, header] of Object.entries(COMMON_HEADERS)) registry.registerComponent('headers', name, header);
  const bearer = registry.registerComponent('securitySchemes', 'bearerKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'Authorization: Bearer svc_live_sk_… (secret), svc_live_pk_… (publishable) or svc_live_… (legacy).',
  });
  const header = registry.registerComponent('securitySchemes', 'apiKeyHeader', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Api-Key',
    description: 'The same key in the X-Api-Key header. A key in the URL is refused.',
  });
  registerOutboundBodies(registry);
  return { registry, security: [{ [bearer.name]: [] }, { [header.name]: [] }] };
}

/** What the service sends (the document's `webhooks`): a webhook delivery, and a push of updates to a plugin. */
function registerOutboundBodies(registry: OpenAPIRegistry) {
  registry.registerWebhook({
    method: 'post',
    path: 'order-event',
    operationId: 'orderEvent',
    tags: ['Webhooks'],
    summary: 'A webhook delivery: one order event POSTed to each endpoint subscribed to its type',
    description:
      'Signed with the Standard Webhooks headers (webhook-id = the event id, webhook-timestamp, webhook-signature = v1,' +
      'base64 HMAC-SHA256 of `id.timestamp.body` keyed with the base64 part of the endpoint secret) and ' +
      'X-Service-Signature (`sha256=` + hex HMAC-SHA256 of the body alone, keyed with the whole secret text: ' +
      'no timestamp, so prefer the Standard Webhooks headers). Also X-Service-Event and X-Service-Delivery. ' +
      'One attempt per event; answer 2xx within the timeout.',
    request: { body: { required: true, content: { 'application/json': { schema: WebhookDelivery } } } },
    responses: { 200: { description: 'Any 2xx answer counts as delivered.' } },
  });
  registry.registerWebhook({
    method: 'post',
    path: 'connection-updates',
    operationId: 'connectionUpdates',
    tags: ['Connection'],
    summary: "A push of waiting updates to a connected plugin's push_url",
    description:
      'Signed with X-Service-Timestamp (unix seconds; refuse it more than 5 minutes from your clock) and ' +
      'X-Service-Signature = `sha256=` + hex HMAC-SHA256 of `timestamp + "." + body`, keyed with the connection\'s ' +
      'webhook_secret. Answer 200 with {applied: [ids], failed: [{id, error}]}; anything else leaves the updates waiting.',
    request: { body: { required: true, content: { 'application/json': { schema: UpdateList } } } },
    responses: { 200: { description: 'The updates applied and failed', content: { 'application/json': { schema: UpdateAck } } } },
  });
}
export type OpenApi = ReturnType<typeof createOpenApiRegistry>;

/** The documented error responses of a route: the common ones for its access, plus its own. */
export function errorResponses(access: Access, hasBody: boolean, own: ErrorCode[]) {
  const codes = new Set<ErrorCode>(['invalid_request', 'rate_limited', 'internal_error', 'unavailable', ...own]);
  if (access.keys !== 'none') ['unauthorized', 'forbidden'].forEach((c) => codes.add(c as ErrorCode));
  if (hasBody) codes.add('payload_too_large');
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [
      status,
      {
        description: list.map((c) => `${c}: ${ERROR_TEXT[c]}`).join(' '),
        headers: status === 429 || status === 503 ? headerRefs([...EVERY_RESPONSE, 'Retry-After']) : rateHeaders,
        content: { 'application/json': { schema: ErrorBody } },
      },
    ]),
  );
}

export const successHeaders = rateHeaders;

/** Describes the key a route needs, for the operation's description. */
export function accessWords(access: Access): string {
  return `Key: ${KEY_WORDS[access.keys]}${access.permission ? ` Permission: ${access.permission}.` : ''}`;
}

/** The OpenAPI 3.1 document of everything registered. */
export function generateOpenApiDocument(openapi: OpenApi, baseUrl: string) {
  return new OpenApiGeneratorV31(openapi.registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Store Commerce API',
      version: '1.0.0',
      description:
        'Store-scoped API for catalogue, checkout, orders, tracking, webhooks and plugin connections. ' +
        'JSON bodies up to 1 MB, dates in ISO 8601 UTC, money as plain decimal numbers. Every response carries ' +
        'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset and Cache-Control: no-store.',
      license: { name: 'Proprietary: for integrating with Store Commerce', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: baseUrl }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
}
