// plugin-kit/signature-vectors.json: made by our signer (the file is what the script makes), and its expected verdicts
// hold against the reference Standard Webhooks library and a plain HMAC written here, not only against our code;
// then the SDK's verifiers (which the kit and our receivers use) agree with every vector.
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { verifyPushedUpdates, verifyWebhook } from '@store-commerce/sdk';
import { signatureVectorsText, type WebhookVector } from '../../scripts/sdk/signature-vectors.js';

const text = readFileSync(new URL('../../plugin-kit/signature-vectors.json', import.meta.url), 'utf8');
const file = JSON.parse(text) as { webhooks: WebhookVector[]; pushes: WebhookVector[]; tolerance_seconds: number };
const verdict = (p: Promise<unknown>) =>
  p.then(
    () => true,
    () => false,
  );

afterEach(() => void vi.useRealTimers());

describe('plugin-kit/signature-vectors.json', () => {
  it('is what npm run signature-vectors makes from the service signer (regenerate and commit it when this fails)', () => {
    expect(text).toBe(signatureVectorsText());
  });

  it('has valid and invalid cases for both webhooks and pushes', () => {
    for (const list of [file.webhooks, file.pushes]) {
      expect(list.filter((v) => v.valid).length).toBeGreaterThanOrEqual(2);
      expect(list.filter((v) => !v.valid).length).toBeGreaterThanOrEqual(5);
    }
  });

  it.each(file.webhooks.map((v) => [v.name, v] as const))('webhook "%s": the standardwebhooks library agrees', (_name, v) => {
    vi.useFakeTimers({ now: v.now * 1000, toFake: ['Date'] });
    const accepted = (() => {
      try {
        new Webhook(v.secret).verify(v.body, v.headers);
        return true;
      } catch {
        return false;
      }
    })();
    expect(accepted).toBe(v.valid);
  });

  it('webhook X-Service-Signature is a plain hex HMAC of the body keyed with the whole secret text', () => {
    const v = file.webhooks[0]!;
    expect(v.headers['x-service-signature']).toBe(`sha256=${createHmac('sha256', v.secret).update(v.body).digest('hex')}`);
  });

  it.each(file.pushes.map((v) => [v.name, v] as const))('push "%s": a plain HMAC written here agrees', (_name, v) => {
    const ts = v.headers['x-service-timestamp'];
    const expected = ts && `sha256=${createHmac('sha256', v.secret).update(`${ts}.${v.body}`).digest('hex')}`;
    const fresh = ts !== undefined && Math.abs(v.now - Number(ts)) <= file.tolerance_seconds;
    expect(Boolean(expected && fresh && v.headers['x-service-signature'] === expected)).toBe(v.valid);
  });

  it('the SDK verifyWebhook and verifyPushedUpdates give every expected verdict', async () => {
    for (const v of file.webhooks)
      expect([v.name, await verdict(verifyWebhook({ secret: v.secret, rawBody: v.body, headers: v.headers, now: v.now * 1000 }))]).toEqual([
        v.name,
        v.valid,
      ]);
    for (const v of file.pushes)
      expect([
        v.name,
        await verdict(verifyPushedUpdates({ secret: v.secret, rawBody: v.body, headers: v.headers, now: v.now * 1000 })),
      ]).toEqual([v.name, v.valid]);
  });

  it('the body-only vector passes only with the explicit allowBodyOnlySignature opt-in', async () => {
    const v = file.webhooks.find((w) => !('webhook-signature' in w.headers))!;
    const opts = { secret: v.secret, rawBody: v.body, headers: v.headers, now: v.now * 1000 };
    await expect(verifyWebhook(opts)).rejects.toThrow(/webhook-id or webhook-signature/);
    await expect(verifyWebhook({ ...opts, allowBodyOnlySignature: true })).resolves.toMatchObject({ type: 'order.created' });
  });
});
