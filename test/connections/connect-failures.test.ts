// A connect request the page cannot use is an error page on the service, never a redirect: return_url and
// site_url come from the same query, so an automatic redirect would be an open one. When return_url is on
// site_url's host the page links back to it (svc_error and state); a failure after a signed-in owner posted
// the form goes back to the plugin (303) (test/dashboard/connect.test.ts lists the pages without a link).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection } from '../helpers/store.js';
import { csrfOf, PageClient } from '../dashboard/client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const SITE = 'https://shop-f.example/';
const RETURN = 'https://shop-f.example/wp-admin/admin.php?page=svc';
const GOOD = { site_url: SITE, return_url: RETURN, state: 'st-9', name: 'Shop F', currency: 'EUR', v: '2.0.0' };
const connectPath = (params: Record<string, string>, platform = 'platform_a') => `/connect/${platform}?${new URLSearchParams(params)}`;
const codesOf = async (storeId: string) =>
  (await t.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from connect_codes where store_id = ?`, [storeId]))[0]!.n;

async function signedIn() {
  const c = new PageClient(t);
  await c.signUp();
  return c;
}

/** The redirect's target: return_url itself (its own query kept), with svc_error and state. */
function backTo(res: { statusCode: number; headers: Record<string, unknown> }, status: number) {
  expect(res.statusCode).toBe(status);
  const url = new URL(res.headers.location as string);
  expect(`${url.origin}${url.pathname}`).toBe('https://shop-f.example/wp-admin/admin.php');
  expect(url.searchParams.get('page')).toBe('svc');
  expect(url.searchParams.has('svc_code')).toBe(false);
  return { error: url.searchParams.get('svc_error'), state: url.searchParams.get('state') };
}

/** The link back offered on the error page: return_url itself (its own query kept), with svc_error and state. */
function linkBack(res: { statusCode: number; headers: Record<string, unknown>; body: string }) {
  expect(res.statusCode).toBe(400);
  expect(res.headers.location).toBeUndefined();
  const href = /<a href="(https:[^"]+)" rel="noreferrer">Back to/.exec(res.body)?.[1];
  expect(href).toBeDefined();
  const url = new URL(href!.replaceAll('&amp;', '&'));
  expect(`${url.origin}${url.pathname}`).toBe('https://shop-f.example/wp-admin/admin.php');
  expect(url.searchParams.get('page')).toBe('svc');
  expect(url.searchParams.has('svc_code')).toBe(false);
  return { error: url.searchParams.get('svc_error'), state: url.searchParams.get('state') };
}

describe('a request the page cannot use is an error page with a link back (svc_error=invalid_request), never a redirect', () => {
  const cases: [string, string, Record<string, string>, string | null][] = [
    ['an unknown platform', 'platform_z', GOOD, 'st-9'],
    ['no state (the link carries none)', 'platform_a', { ...GOOD, state: '' }, null],
    ['a state over 500 characters (the link carries none)', 'platform_a', { ...GOOD, state: 'x'.repeat(501) }, null],
  ];
  for (const [what, platform, params, state] of cases) {
    it(what, async () => {
      for (const c of [new PageClient(t), await signedIn()]) {
        expect(linkBack(await c.get(connectPath(params, platform)))).toEqual({ error: 'invalid_request', state });
      }
    });
  }

  it('site_url and return_url on another site (both from the same query), unknown platform or no state: no redirect off the service', async () => {
    const evil = { ...GOOD, site_url: 'https://evil.example', return_url: 'https://evil.example/x' };
    for (const [platform, params] of [
      ['platform_z', evil],
      ['platform_a', { ...evil, state: '' }],
    ] as const) {
      const res = await new PageClient(t).get(connectPath(params, platform));
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
    }
  });

  it('a return_url that cannot be proven the shop’s (no valid site_url, another host) is an error page on the service, never a redirect', async () => {
    for (const params of [
      { ...GOOD, site_url: '' },
      { ...GOOD, site_url: 'javascript:alert(1)', state: '' },
      { ...GOOD, return_url: 'https://evil.example/x' },
      { ...GOOD, return_url: '' },
    ]) {
      const res = await new PageClient(t).get(connectPath(params));
      expect(res.statusCode).toBe(400);
      expect(res.headers.location).toBeUndefined();
      expect(res.headers['content-type']).toContain('text/html');
    }
  });
});

describe('a failed approval goes back with svc_error and state (303), and issues no code', () => {
  /** Posts the approval form as the page renders it, with the fields changed as given. */
  async function submit(c: PageClient, fields: Record<string, string>, platform = 'platform_a') {
    const page = await c.get(connectPath(GOOD));
    expect(page.statusCode).toBe(200);
    return c.post(`/connect/${platform}`, { ...GOOD, _csrf: csrfOf(page.body)!, ...fields });
  }

  it('decline: access_denied', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    expect(backTo(await submit(c, { decision: 'decline', store: storeId }), 303)).toEqual({ error: 'access_denied', state: 'st-9' });
    expect(await codesOf(storeId)).toBe(0);
  });

  it('the picked store at its plan’s limit: plan_limit', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    await createTestConnection(t.orm, storeId, 'platform_b', 'https://other-f.example');
    expect(backTo(await submit(c, { decision: 'approve', store: storeId }), 303)).toEqual({ error: 'plan_limit', state: 'st-9' });
    expect(await codesOf(storeId)).toBe(0);
  });

  it('a bad new-store form (no name, a bad currency): invalid_request, and no store is created', async () => {
    const c = await signedIn();
    const name = `Refused ${process.pid}-${Date.now()}`;
    for (const fields of [
      { new_name: '', new_currency: 'EUR' },
      { new_name: name, new_currency: 'EURO' },
    ]) {
      const res = await submit(c, { decision: 'approve', store: 'new', ...fields });
      expect(backTo(res, 303)).toEqual({ error: 'invalid_request', state: 'st-9' });
    }
    const [row] = await t.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from stores where name = ?`, [name]);
    expect(row!.n).toBe(0);
  });

  it('no store picked, or another owner’s store: invalid_request', async () => {
    const other = await signedIn();
    const theirs = await other.createStore();
    const c = await signedIn();
    expect(backTo(await submit(c, { decision: 'approve', store: '' }), 303).error).toBe('invalid_request');
    expect(backTo(await submit(c, { decision: 'approve', store: theirs }), 303).error).toBe('invalid_request');
    expect(await codesOf(theirs)).toBe(0);
  });

  it('a posted form whose platform or state was spoiled: invalid_request to the same return_url', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    expect(backTo(await submit(c, { decision: 'approve', store: storeId }, 'platform_z'), 303)).toEqual({
      error: 'invalid_request',
      state: 'st-9',
    });
    expect(backTo(await submit(c, { decision: 'approve', store: storeId, state: '' }), 303)).toEqual({
      error: 'invalid_request',
      state: null,
    });
    expect(await codesOf(storeId)).toBe(0);
  });

  it('a posted form from another site (no form token) stays on the service: 403, no redirect', async () => {
    const c = await signedIn();
    const res = await c.post('/connect/platform_a', { ...GOOD, decision: 'approve', store: 'new' });
    expect(res.statusCode).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });
});
