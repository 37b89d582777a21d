// Verifying what the service sends: webhooks (the Standard Webhooks headers; X-Service-Signature only on request)
// and pushed updates (X-Service-Timestamp + X-Service-Signature). WebCrypto only, so the same code runs in Node and
// browsers. The bodies are typed by the OpenAPI document's `webhooks` section.
import type { components } from './schema.js';

/** A webhook delivery's body: {id, type, created_at, data: {order}} (the document's `order-event` webhook). */
export type WebhookEvent = components['schemas']['WebhookDelivery'];
/** The type of a webhook event: order.created, order.paid, … */
export type WebhookEventType = WebhookEvent['type'];
/** The body of a push to a plugin's push_url: {updates: [...]} (the document's `connection-updates` webhook). */
export type PushedUpdates = components['schemas']['UpdateList'];
/** One update going back to a connected shop. */
export type Update = components['schemas']['Update'];

/** Headers as a receiver holds them: a fetch Headers object, or Node's lower-cased record. */
export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** The endpoint's whole secret text, `whsec_…` (webhooks), or the connection's webhook_secret (pushed updates). */
  secret: string;
  /** The body exactly as received, before any JSON parsing: a re-serialised body does not match. */
  rawBody: string | Uint8Array;
  headers: HeaderSource;
  /** Largest accepted distance between the signed timestamp and now, in seconds (default 300: the spec's 5 minutes). */
  toleranceSeconds?: number;
  /** The current time in ms (tests); defaults to Date.now(). */
  now?: number;
}

export interface VerifyWebhookOptions extends VerifyOptions {
  /**
   * Also accept a delivery that carries only X-Service-Signature (an HMAC of the body alone, with no timestamp,
   * so a captured delivery can be replayed at any later time). Off by default: a delivery whose Standard Webhooks
   * headers were stripped is refused. Turn it on only for a receiver that cannot see those headers.
   */
  allowBodyOnlySignature?: boolean;
}

/**
 * A delivery that must not be trusted; the message says why (for logs, never for the sender). `kind` is
 * 'body' when the signature matched but the body is not JSON, 'signature' otherwise.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    message: string,
    readonly kind: 'signature' | 'body' = 'signature',
  ) {
    super(message);
  }
}

const encoder = new TextEncoder();
const bytesOf = (body: string | Uint8Array) => (typeof body === 'string' ? encoder.encode(body) : body);

function header(headers: HeaderSource, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  const value = record[name] ?? Object.entries(record).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(value) ? value[0] : value;
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const fromHex = (hex: string) =>
  /^(?:[0-9a-f]{2})+$/i.test(hex) ? new Uint8Array(hex.match(/../g)!.map((b) => parseInt(b, 16))) : undefined;

function fromBase64(text: string): Uint8Array<ArrayBuffer> | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

const hmacKey = (key: Uint8Array<ArrayBuffer>) => crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

/** True when `signature` is the HMAC-SHA256 of `data`; crypto.subtle.verify compares in constant time. */
async function hmacMatches(key: Uint8Array<ArrayBuffer>, signature: Uint8Array<ArrayBuffer>, data: Uint8Array<ArrayBuffer>) {
  return signature.length === 32 && crypto.subtle.verify('HMAC', await hmacKey(key), signature, data);
}

function checkTimestamp(text: string | undefined, options: VerifyOptions): string {
  if (text === undefined || !/^\d+$/.test(text.trim())) throw new WebhookVerificationError('missing or malformed timestamp header');
  const skew = Math.abs((options.now ?? Date.now()) / 1000 - Number(text));
  if (skew > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError(`timestamp is ${Math.round(skew)} s away from now`);
  return text.trim();
}

function parseJson(body: string | Uint8Array): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('the body is not JSON', 'body');
  }
}

/**
 * Checks a webhook by its Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature):
 * the timestamp within the tolerance and one v1 signature of `id.timestamp.body` matching. Returns the parsed body.
 */
export async function verifyStandardWebhook(options: VerifyOptions): Promise<WebhookEvent> {
  const id = header(options.headers, 'webhook-id');
  const signatures = header(options.headers, 'webhook-signature');
  if (!id || !signatures) throw new WebhookVerificationError('missing webhook-id or webhook-signature header');
  const timestamp = checkTimestamp(header(options.headers, 'webhook-timestamp'), options);
  const key = fromBase64(options.secret.replace(/^whsec_/, ''));
  if (!key) throw new WebhookVerificationError('the secret is not whsec_ + base64');
  const signed = concat(encoder.encode(`${id}.${timestamp}.`), bytesOf(options.rawBody));
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    const signature = version === 'v1' && value ? fromBase64(value) : undefined;
    if (signature && (await hmacMatches(key, signature, signed))) return parseJson(options.rawBody) as WebhookEvent;
  }
  throw new WebhookVerificationError('no webhook-signature matches');
}

/**
 * Checks a webhook by X-Service-Signature alone (`sha256=` + hex HMAC of the raw body, keyed with the whole secret
 * text). This signature covers the body only, so it cannot tell a replayed request: use verifyWebhook, which
 * requires the timestamped Standard Webhooks headers.
 */
export async function verifyServiceSignature(options: Omit<VerifyOptions, 'toleranceSeconds' | 'now'>): Promise<WebhookEvent> {
  const signature = fromHex(header(options.headers, 'x-service-signature')?.replace(/^sha256=/, '') ?? '');
  if (!signature) throw new WebhookVerificationError('missing or malformed X-Service-Signature header');
  if (!(await hmacMatches(encoder.encode(options.secret), signature, concat(bytesOf(options.rawBody)))))
    throw new WebhookVerificationError('X-Service-Signature does not match');
  return parseJson(options.rawBody) as WebhookEvent;
}

/**
 * Checks a webhook delivery by its Standard Webhooks headers (webhook-id, webhook-timestamp within the tolerance,
 * webhook-signature) and returns the typed event. A delivery without them is refused, unless
 * `allowBodyOnlySignature` is set: then X-Service-Signature (body only, replayable) is accepted in their place.
 */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<WebhookEvent> {
  if (header(options.headers, 'webhook-signature') !== undefined || !options.allowBodyOnlySignature) return verifyStandardWebhook(options);
  return verifyServiceSignature(options);
}

/**
 * Checks a push of updates to a plugin's push_url: X-Service-Timestamp within the tolerance (5 minutes by default)
 * and X-Service-Signature = `sha256=` + hex HMAC of `timestamp.body`, keyed with the connection's webhook_secret.
 */
export async function verifyPushedUpdates(options: VerifyOptions): Promise<PushedUpdates> {
  const timestamp = checkTimestamp(header(options.headers, 'x-service-timestamp'), options);
  const signature = fromHex(header(options.headers, 'x-service-signature')?.replace(/^sha256=/, '') ?? '');
  if (!signature) throw new WebhookVerificationError('missing or malformed X-Service-Signature header');
  const signed = concat(encoder.encode(`${timestamp}.`), bytesOf(options.rawBody));
  if (!(await hmacMatches(encoder.encode(options.secret), signature, signed)))
    throw new WebhookVerificationError('X-Service-Signature does not match');
  return parseJson(options.rawBody) as PushedUpdates;
}
