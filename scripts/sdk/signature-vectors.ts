// The signature test vectors of plugin-kit/signature-vectors.json, made with the service's own signer
// (domain/webhook-signature.ts) from fixed inputs, so the file is the same on every run.
// test/plugin-kit/signature-vectors.test.ts checks it against this signer and against the standardwebhooks library.
import { serviceSignature, standardWebhookSignature, timestampedSignature } from '../../domain/webhook-signature.js';

const TIMESTAMP = 1_800_000_000;
/** Fixed secrets in the service's format: `whsec_` + base64 of 32 bytes. */
const SECRET = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => i)).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.from(Array.from({ length: 32 }, (_, i) => 255 - i)).toString('base64')}`;
const EVENT_ID = '5f0c7c58-7a55-4f38-9d65-0b8d1c6f2a11';
const WEBHOOK_BODY = JSON.stringify({
  id: EVENT_ID,
  type: 'order.created',
  created_at: '2027-01-15T08:00:00.000Z',
  data: { order: { id: '0b6f1a8e-1c1e-4c43-9d7c-51f0f2d0a7e3', object: 'order', order_number: '1001', customer: { name: 'Zoë Ünal' } } },
});
const PUSH_BODY = JSON.stringify({
  updates: [
    {
      id: 'a3c4e1f0-2b1d-4e5f-8a9b-0c1d2e3f4a5b',
      order_id: '0b6f1a8e-1c1e-4c43-9d7c-51f0f2d0a7e3',
      external_id: 'WC-1001',
      number: '1001',
      status: 'shipped',
      tracking: { number: 'AWB123', courier: 'Courier', url: null },
      tracking_page_url: 'https://service.example/track/0b6f1a8e-1c1e-4c43-9d7c-51f0f2d0a7e3',
      comment: null,
      updated_at: '2027-01-15T08:00:00.000Z',
    },
  ],
});

export interface WebhookVector {
  name: string;
  secret: string;
  /** The receiver's clock, unix seconds. */
  now: number;
  body: string;
  headers: Record<string, string>;
  valid: boolean;
}
export type PushVector = WebhookVector;

function webhookHeaders(secret: string, id: string, timestamp: number, body: string) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(secret, id, timestamp, body),
    'x-service-signature': serviceSignature(secret, body),
  };
}

function pushHeaders(secret: string, timestamp: number, body: string) {
  return { 'x-service-timestamp': String(timestamp), 'x-service-signature': timestampedSignature(secret, timestamp, body) };
}

export function signatureVectors() {
  const good = webhookHeaders(SECRET, EVENT_ID, TIMESTAMP, WEBHOOK_BODY);
  const { 'webhook-id': _i, 'webhook-timestamp': _t, 'webhook-signature': _s, ...bodyOnly } = good;
  const webhooks: WebhookVector[] = [
    { name: 'valid', secret: SECRET, now: TIMESTAMP, body: WEBHOOK_BODY, headers: good, valid: true },
    {
      name: 'valid 300 s after signing (the edge of the 5-minute window)',
      secret: SECRET,
      now: TIMESTAMP + 300,
      body: WEBHOOK_BODY,
      headers: good,
      valid: true,
    },
    {
      name: 'valid: one of two signatures matches (a rotated secret)',
      secret: SECRET,
      now: TIMESTAMP,
      body: WEBHOOK_BODY,
      headers: {
        ...good,
        'webhook-signature': `${standardWebhookSignature(OTHER_SECRET, EVENT_ID, TIMESTAMP, WEBHOOK_BODY)} ${good['webhook-signature']}`,
      },
      valid: true,
    },
    {
      name: 'invalid: 301 s after signing (a replay)',
      secret: SECRET,
      now: TIMESTAMP + 301,
      body: WEBHOOK_BODY,
      headers: good,
      valid: false,
    },
    {
      name: 'invalid: timestamped 301 s in the future',
      secret: SECRET,
      now: TIMESTAMP - 301,
      body: WEBHOOK_BODY,
      headers: good,
      valid: false,
    },
    {
      name: 'invalid: signed with another secret',
      secret: SECRET,
      now: TIMESTAMP,
      body: WEBHOOK_BODY,
      headers: webhookHeaders(OTHER_SECRET, EVENT_ID, TIMESTAMP, WEBHOOK_BODY),
      valid: false,
    },
    {
      name: 'invalid: the body changed after signing',
      secret: SECRET,
      now: TIMESTAMP,
      body: WEBHOOK_BODY.replace('1001', '1002'),
      headers: good,
      valid: false,
    },
    {
      name: 'invalid: a fresh webhook-timestamp with the old signature',
      secret: SECRET,
      now: TIMESTAMP + 600,
      body: WEBHOOK_BODY,
      headers: { ...good, 'webhook-timestamp': String(TIMESTAMP + 600) },
      valid: false,
    },
    {
      name: 'invalid: another webhook-id with the same signature',
      secret: SECRET,
      now: TIMESTAMP,
      body: WEBHOOK_BODY,
      headers: { ...good, 'webhook-id': 'c0ffee00-0000-4000-8000-000000000000' },
      valid: false,
    },
    {
      name: 'invalid by default: only X-Service-Signature (the Standard Webhooks headers stripped; body only, replayable)',
      secret: SECRET,
      now: TIMESTAMP,
      body: WEBHOOK_BODY,
      headers: bodyOnly,
      valid: false,
    },
  ];
  const push = pushHeaders(SECRET, TIMESTAMP, PUSH_BODY);
  const pushes: PushVector[] = [
    { name: 'valid', secret: SECRET, now: TIMESTAMP, body: PUSH_BODY, headers: push, valid: true },
    { name: 'valid 300 s after signing', secret: SECRET, now: TIMESTAMP + 300, body: PUSH_BODY, headers: push, valid: true },
    { name: 'invalid: 301 s after signing (a replay)', secret: SECRET, now: TIMESTAMP + 301, body: PUSH_BODY, headers: push, valid: false },
    {
      name: 'invalid: timestamped 301 s in the future',
      secret: SECRET,
      now: TIMESTAMP - 301,
      body: PUSH_BODY,
      headers: push,
      valid: false,
    },
    {
      name: 'invalid: signed with another secret',
      secret: SECRET,
      now: TIMESTAMP,
      body: PUSH_BODY,
      headers: pushHeaders(OTHER_SECRET, TIMESTAMP, PUSH_BODY),
      valid: false,
    },
    {
      name: 'invalid: the body changed after signing',
      secret: SECRET,
      now: TIMESTAMP,
      body: PUSH_BODY.replace('AWB123', 'AWB124'),
      headers: push,
      valid: false,
    },
    {
      name: 'invalid: a fresh X-Service-Timestamp with the old signature',
      secret: SECRET,
      now: TIMESTAMP + 600,
      body: PUSH_BODY,
      headers: { ...push, 'x-service-timestamp': String(TIMESTAMP + 600) },
      valid: false,
    },
    {
      name: 'invalid: no X-Service-Timestamp',
      secret: SECRET,
      now: TIMESTAMP,
      body: PUSH_BODY,
      headers: { 'x-service-signature': push['x-service-signature'] },
      valid: false,
    },
    {
      name: 'invalid: no X-Service-Signature',
      secret: SECRET,
      now: TIMESTAMP,
      body: PUSH_BODY,
      headers: { 'x-service-timestamp': push['x-service-timestamp'] },
      valid: false,
    },
  ];
  return {
    about:
      'Signature test vectors for receivers of Store Commerce webhooks and pushed updates. Verify each with the body exactly as given ' +
      '(UTF-8 bytes), the secret and the headers, with your clock at `now` (unix seconds) and a 300-second tolerance; `valid` is the ' +
      'expected verdict. Webhooks: the Standard Webhooks headers are required (v1 = base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` ' +
      'keyed with the base64-decoded part of the secret after whsec_). Pushes: X-Service-Signature = sha256= + hex HMAC-SHA256 of ' +
      '`X-Service-Timestamp.body` keyed with the whole secret text. Generated by npm run signature-vectors.',
    tolerance_seconds: 300,
    webhooks,
    pushes,
  };
}

/** The file's text: two-space JSON and a final newline. */
export const signatureVectorsText = () => `${JSON.stringify(signatureVectors(), null, 2)}\n`;
