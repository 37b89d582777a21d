// The SDK's signature checks against the reference Standard Webhooks library and the service's own signing code.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, serviceSignature, timestampedSignature } from '../../domain/webhook-signature.js';
import { verifyPushedUpdates, verifyServiceSignature, verifyStandardWebhook, verifyWebhook } from '../../sdk/src/index.js';

const secret = generateWebhookSecret();
const body = JSON.stringify({ id: 'evt_1', type: 'order.created', data: { order: { total: 1.5, name: 'Zoë' } } });
const now = Date.now();
const standardHeaders = (at = now, id = 'evt_1') => ({
  'webhook-id': id,
  'webhook-timestamp': String(Math.floor(at / 1000)),
  'webhook-signature': new Webhook(secret).sign(id, new Date(at), body),
});

describe('Standard Webhooks headers, as the reference library signs them', () => {
  it('verifies, from a Node record or a fetch Headers object, the body as text or bytes', async () => {
    expect(await verifyStandardWebhook({ secret, rawBody: body, headers: standardHeaders() })).toEqual(JSON.parse(body));
    const bytes = new TextEncoder().encode(body);
    expect(await verifyWebhook({ secret, rawBody: bytes, headers: new Headers(standardHeaders()) })).toEqual(JSON.parse(body));
  });

  it('accepts any one matching signature of several (a rotated secret)', async () => {
    const headers = standardHeaders();
    const other = new Webhook(generateWebhookSecret()).sign('evt_1', new Date(now), body);
    headers['webhook-signature'] = `${other} ${headers['webhook-signature']}`;
    await expect(verifyStandardWebhook({ secret, rawBody: body, headers })).resolves.toBeTruthy();
  });

  it('refuses a timestamp outside the tolerance, either way, and honours a custom tolerance', async () => {
    const old = standardHeaders(now - 301_000);
    await expect(verifyStandardWebhook({ secret, rawBody: body, headers: old, now })).rejects.toThrow(/timestamp/);
    await expect(verifyStandardWebhook({ secret, rawBody: body, headers: standardHeaders(now + 301_000), now })).rejects.toThrow(
      /timestamp/,
    );
    await expect(verifyStandardWebhook({ secret, rawBody: body, headers: old, now, toleranceSeconds: 600 })).resolves.toBeTruthy();
  });

  it('refuses another id, a changed body, a malformed or missing signature', async () => {
    const headers = standardHeaders();
    await expect(verifyStandardWebhook({ secret, rawBody: body, headers: { ...headers, 'webhook-id': 'evt_2' } })).rejects.toThrow();
    await expect(verifyStandardWebhook({ secret, rawBody: body.replace('1.5', '15'), headers })).rejects.toThrow();
    for (const signature of ['v1,', 'v1,***', 'v2,' + headers['webhook-signature'].slice(3), '']) {
      await expect(
        verifyStandardWebhook({ secret, rawBody: body, headers: { ...headers, 'webhook-signature': signature } }),
      ).rejects.toThrow();
    }
  });
});

describe('X-Service-Signature, as the service signs webhooks and pushes', () => {
  it('verifies a webhook signature over the raw body only, and refuses one byte changed', async () => {
    const headers = { 'x-service-signature': serviceSignature(secret, body) };
    await expect(verifyServiceSignature({ secret, rawBody: body, headers })).resolves.toEqual(JSON.parse(body));
    await expect(verifyServiceSignature({ secret, rawBody: `${body} `, headers })).rejects.toThrow(/does not match/);
    await expect(verifyServiceSignature({ secret, rawBody: body, headers: { 'x-service-signature': 'sha256=zz' } })).rejects.toThrow(
      /malformed/,
    );
  });

  it('verifyWebhook refuses a delivery whose Standard Webhooks headers were stripped, unless the body-only check is opted into', async () => {
    const headers = { 'x-service-signature': serviceSignature(secret, body) };
    await expect(verifyWebhook({ secret, rawBody: body, headers })).rejects.toThrow(/missing webhook-id or webhook-signature/);
    await expect(verifyWebhook({ secret, rawBody: body, headers, allowBodyOnlySignature: true })).resolves.toEqual(JSON.parse(body));
    await expect(verifyWebhook({ secret, rawBody: `${body} `, headers, allowBodyOnlySignature: true })).rejects.toThrow(/does not match/);
    // With the Standard Webhooks headers present, the opt-in changes nothing: they are checked (a stale one is refused).
    await expect(
      verifyWebhook({
        secret,
        rawBody: body,
        headers: { ...standardHeaders(now - 10 * 60_000), ...headers },
        allowBodyOnlySignature: true,
      }),
    ).rejects.toThrow(/timestamp/);
  });

  it('verifies a pushed update within 5 minutes and refuses a stale one', async () => {
    const timestamp = Math.floor(now / 1000);
    const headers = { 'x-service-timestamp': String(timestamp), 'x-service-signature': timestampedSignature(secret, timestamp, body) };
    await expect(verifyPushedUpdates({ secret, rawBody: body, headers, now })).resolves.toBeTruthy();
    await expect(verifyPushedUpdates({ secret, rawBody: body, headers, now: now + 301_000 })).rejects.toThrow(/timestamp/);
    // The signature binds the timestamp: moving it breaks the signature.
    await expect(
      verifyPushedUpdates({ secret, rawBody: body, headers: { ...headers, 'x-service-timestamp': String(timestamp + 1) }, now }),
    ).rejects.toThrow(/does not match/);
  });
});
