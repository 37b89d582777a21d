import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  applyUpdates,
  ConnectStates,
  PendingConnects,
  connectUrl,
  handlePush,
  pushSignature,
  readConnectReturn,
  signPush,
  verifyPushedUpdates,
  WebhookVerificationError,
  type ApplyReport,
  type Update,
} from '@store-commerce/plugin-kit';
import { timestampedSignature } from '../../domain/webhook-signature.js';

const SECRET = 'whsec_test';
const NOW = 1_800_000_000;
const update = (id: string, externalId = 'E-1'): Update => ({
  id,
  order_id: `o-${id}`,
  external_id: externalId,
  number: null,
  status: 'shipped',
  tracking: { number: 'AWB', courier: null, url: null },
  tracking_page_url: 'https://service.example/t/1',
  comment: null,
  updated_at: '2026-11-24T00:00:00Z',
});

describe('push signatures', () => {
  it('sign the text timestamp + "." + raw body with HMAC-SHA256, as the service does', () => {
    const body = JSON.stringify({ updates: [update('u1')] });
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${NOW}.${body}`).digest('hex')}`;
    expect(pushSignature(SECRET, NOW, body)).toBe(expected);
    // The service's own signer (domain/) agrees byte for byte; the kit does not import it.
    expect(timestampedSignature(SECRET, NOW, body)).toBe(expected);
  });

  // The check is the SDK's verifyPushedUpdates (re-exported by the kit; the kit has no second copy).
  const verify = (headers: Record<string, string | undefined>, body: string) =>
    verifyPushedUpdates({ secret: SECRET, rawBody: body, headers, now: NOW * 1000 }).then(
      () => 'ok',
      (e: WebhookVerificationError) => e.message,
    );

  it('a push signed now verifies; 5 minutes either side is the edge of the window', async () => {
    const body = '{"updates":[]}';
    expect(await verify(signPush(SECRET, body, NOW), body)).toBe('ok');
    expect(await verify(signPush(SECRET, body, NOW - 300), body)).toBe('ok');
    expect(await verify(signPush(SECRET, body, NOW + 300), body)).toBe('ok');
    expect(await verify(signPush(SECRET, body, NOW - 301), body)).toMatch(/301 s away/);
    expect(await verify(signPush(SECRET, body, NOW + 301), body)).toMatch(/301 s away/);
  });

  it('refuses another secret, a changed body, a changed timestamp and missing or malformed headers', async () => {
    const body = '{"updates":[]}';
    const good = signPush(SECRET, body, NOW);
    expect(await verify(signPush('other', body, NOW), body)).toBe('X-Service-Signature does not match');
    expect(await verify(good, '{"updates": []}')).toBe('X-Service-Signature does not match');
    expect(await verify({ ...good, 'x-service-timestamp': String(NOW + 1) }, body)).not.toBe('ok');
    expect(await verify({ ...good, 'x-service-signature': undefined }, body)).not.toBe('ok');
    expect(await verify({ ...good, 'x-service-timestamp': undefined }, body)).not.toBe('ok');
    expect(await verify({ ...good, 'x-service-timestamp': '17e8' }, body)).not.toBe('ok');
    expect(await verify({ ...good, 'x-service-signature': 'sha256=00' }, body)).not.toBe('ok');
  });
});

describe('connect states and the connect URL', () => {
  it('a state is random, usable once, and refused after 15 minutes', () => {
    let now = 0;
    const states = new ConnectStates(undefined, () => now);
    const a = states.issue('admin-1');
    const b = states.issue('admin-1');
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(a).not.toBe(b);
    expect(states.consume(a, 'admin-1')).toBe(true);
    expect(states.consume(a, 'admin-1')).toBe(false);
    now = 15 * 60 * 1000 + 1;
    expect(states.consume(b, 'admin-1')).toBe(false);
    expect(states.consume('', 'admin-1')).toBe(false);
    expect(states.consume(null, 'admin-1')).toBe(false);
  });

  it('a return hands out the code only with a state of ours; a failure carries svc_error', () => {
    const states = new ConnectStates();
    const state = states.issue('admin-1');
    expect(readConnectReturn(new URLSearchParams({ svc_code: 'c', state: 'forged' }), states, 'admin-1')).toEqual({
      ok: false,
      error: 'unknown or expired state',
    });
    expect(readConnectReturn(new URLSearchParams({ svc_code: 'c', state }), states, 'admin-1')).toEqual({ ok: true, code: 'c' });
    const other = states.issue('admin-1');
    expect(readConnectReturn(new URLSearchParams({ svc_error: 'access_denied', state: other }), states, 'admin-1')).toEqual({
      ok: false,
      error: 'access_denied',
    });
  });

  it('a state is bound to the admin session it was issued to: another session, or none, is refused (and uses it up)', () => {
    const states = new ConnectStates();
    const state = states.issue('admin-1');
    expect(readConnectReturn(new URLSearchParams({ svc_code: 'c', state }), states, 'attacker-session')).toEqual({
      ok: false,
      error: 'unknown or expired state',
    });
    expect(readConnectReturn(new URLSearchParams({ svc_code: 'c', state }), states, 'admin-1')).toMatchObject({ ok: false });
    const other = states.issue('admin-1');
    expect(states.consume(other, undefined)).toBe(false);
    expect(() => states.issue('')).toThrow(/admin session/);
  });

  it('a pending connect replaces nothing until the same session confirms the exact store name, once', () => {
    let now = 0;
    const pending = new PendingConnects<{ store: { id: string; name: string }; key: string }>(undefined, () => now);
    const result = { store: { id: 's2', name: 'Other Store' }, key: 'k2' };
    const token = pending.hold('admin-1', result);
    expect(pending.confirm(token, 'admin-2', 'Other Store')).toMatchObject({ ok: false });
    const again = pending.hold('admin-1', result);
    expect(pending.confirm(again, 'admin-1', 'Other')).toEqual({ ok: false, error: "the store's name was not confirmed" });
    expect(pending.confirm(again, 'admin-1', 'Other Store')).toMatchObject({ ok: false }); // used up by the wrong name
    const third = pending.hold('admin-1', result);
    expect(pending.confirm(third, 'admin-1', ' Other Store ')).toEqual({ ok: true, result });
    expect(pending.confirm(third, 'admin-1', 'Other Store')).toMatchObject({ ok: false });
    const late = pending.hold('admin-1', result);
    now = 15 * 60 * 1000 + 1;
    expect(pending.confirm(late, 'admin-1', 'Other Store')).toMatchObject({ ok: false });
  });

  it('the connect URL carries the six query parameters and refuses a return_url on another host', () => {
    const input = {
      serviceUrl: 'https://service.example/',
      platform: 'platform_a' as const,
      siteUrl: 'https://shop.example',
      returnUrl: 'https://shop.example/admin/connect',
      state: 's1',
      name: 'Shop',
      currency: 'EUR',
      pluginVersion: '2.0.0',
    };
    const url = new URL(connectUrl(input));
    expect(url.origin + url.pathname).toBe('https://service.example/connect/platform_a');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      site_url: 'https://shop.example',
      return_url: 'https://shop.example/admin/connect',
      state: 's1',
      name: 'Shop',
      currency: 'EUR',
      v: '2.0.0',
    });
    expect(() => connectUrl({ ...input, returnUrl: 'https://evil.example/cb' })).toThrow(/same host/);
  });
});

describe('applying updates', () => {
  it('applies each update once, reports repeats as applied, failures with their error, and entries without external_id', async () => {
    const ledger = new Set<string>();
    const seen: string[] = [];
    const applyOne = (u: Update) => {
      if (u.external_id === 'missing') throw new Error('no such order');
      seen.push(u.id);
    };
    const first = await applyUpdates([update('a'), update('b', 'missing'), { id: 'c' }, 'junk'], ledger, applyOne);
    expect(first).toEqual({
      applied: ['a'],
      failed: [
        { id: 'b', error: 'no such order' },
        { id: 'c', error: 'not an update (external_id missing)' },
      ],
    });
    expect(await applyUpdates([update('a'), update('d')], ledger, applyOne)).toEqual({ applied: ['a', 'd'], failed: [] });
    expect(seen).toEqual(['a', 'd']);
  });

  it('a failed update is not remembered, so a later retry can apply it', async () => {
    const ledger = new Set<string>();
    let orderExists = false;
    const applyOne = () => {
      if (!orderExists) throw new Error('not yet');
    };
    expect((await applyUpdates([update('a')], ledger, applyOne)).failed).toHaveLength(1);
    orderExists = true;
    expect(await applyUpdates([update('a')], ledger, applyOne)).toEqual({ applied: ['a'], failed: [] });
  });
});

describe('handling a push', () => {
  const apply = async (updates: unknown[]): Promise<ApplyReport> => ({ applied: updates.map((u) => (u as Update).id), failed: [] });
  const opts = { secret: () => SECRET, apply, now: () => NOW * 1000 };

  it('answers 200 with {applied, failed} for a signed, fresh push', async () => {
    const body = JSON.stringify({ updates: [update('a')] });
    expect(await handlePush(signPush(SECRET, body, NOW), body, opts)).toEqual({ status: 200, body: { applied: ['a'], failed: [] } });
  });

  it('answers 401 to an unsigned, stale or not-yet-connected push, and 400 to a signed body that is not {updates}', async () => {
    const body = JSON.stringify({ updates: [update('a')] });
    expect((await handlePush({}, body, opts)).status).toBe(401);
    expect((await handlePush(signPush(SECRET, body, NOW - 600), body, opts)).status).toBe(401);
    expect((await handlePush(signPush(SECRET, body, NOW), body, { ...opts, secret: () => undefined })).status).toBe(401);
    for (const bad of ['{"updates":', '{"orders":[]}', 'null'])
      expect(await handlePush(signPush(SECRET, bad, NOW), bad, opts)).toMatchObject({ status: 400 });
  });
});
