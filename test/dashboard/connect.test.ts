// The connect page's rules at the HTTP level: parameters checked before anything (an error page, never a
// redirect, when return_url is not proven the shop's own), sign-in keeping the parameters, approve / decline,
// the plan limit, and codes only for own stores. Failures that go back to the plugin: test/connections/connect-failures.test.ts.
import { setStorePlan } from '../../services/plans/change.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection } from '../helpers/store.js';
import { csrfOf, PageClient, PASSWORD } from './client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());

const SITE = 'https://shop-a.example/';
const GOOD = {
  site_url: SITE,
  return_url: 'https://shop-a.example/wp-admin/admin.php?page=svc',
  state: 'st-1',
  name: 'Shop A',
  currency: 'eur',
  v: '2.0.0',
};
const connectPath = (params: Record<string, string>, platform = 'platform_a') => `/connect/${platform}?${new URLSearchParams(params)}`;
const codesOf = async (storeId: string) =>
  (await t.orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from connect_codes where store_id = ?`, [storeId]))[0]!.n;

/** Posts the approval form as the page renders it, with the fields changed as given. */
async function submit(c: PageClient, fields: Record<string, string>, params: Record<string, string> = GOOD) {
  const page = await c.get(connectPath(params));
  expect(page.statusCode).toBe(200);
  return c.post('/connect/platform_a', { ...params, _csrf: csrfOf(page.body)!, ...fields });
}

describe('invalid connect parameters', () => {
  const cases: [string, string, Record<string, string>, string][] = [
    ['no site_url', 'platform_a', { ...GOOD, site_url: '' }, 'site_url is missing'],
    [
      'a site_url that is not a web address',
      'platform_a',
      { ...GOOD, site_url: 'javascript:alert(1)' },
      'site_url is not an http(s) address',
    ],
    ['no return_url', 'platform_b', { ...GOOD, return_url: '' }, 'return_url is missing'],
    ['a return_url on another host', 'platform_a', { ...GOOD, return_url: 'https://evil.example/steal' }, 'same host as site_url'],
    ['a return_url on a sub-domain', 'platform_a', { ...GOOD, return_url: 'https://admin.shop-a.example/x' }, 'same host as site_url'],
    [
      'a return_url with credentials',
      'platform_a',
      { ...GOOD, return_url: 'https://user:pw@shop-a.example/x' },
      'return_url is not an http(s) address',
    ],
    [
      'a javascript: return_url',
      'platform_a',
      { ...GOOD, return_url: 'javascript://shop-a.example/%0aalert(1)' },
      'return_url is not an http(s) address',
    ],
  ];
  for (const [what, platform, params, message] of cases) {
    it(`${what} gives a 400 error page and no redirect`, async () => {
      for (const c of [new PageClient(t), await signedIn()]) {
        const res = await c.get(connectPath(params, platform));
        expect(res.statusCode).toBe(400);
        expect(res.headers.location).toBeUndefined();
        expect(res.headers['content-type']).toContain('text/html');
        expect(res.body).toContain(message);
        expect(res.body).not.toContain('evil.example');
      }
    });
  }

  it('a posted approval whose return_url was changed to another host is refused without a code or a redirect', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    const res = await submit(c, { decision: 'approve', store: storeId, return_url: 'https://evil.example/x' });
    expect(res.statusCode).toBe(400);
    expect(res.headers.location).toBeUndefined();
    expect(await codesOf(storeId)).toBe(0);
  });
});

async function signedIn() {
  const c = new PageClient(t);
  await c.signUp();
  return c;
}

describe('approving and declining', () => {
  it('signed out, the page shows the shop and sign-in forms that come back to the same connect request', async () => {
    const owner = new PageClient(t);
    const ownerEmail = await new PageClient(t).signUp();
    const page = await owner.get(connectPath(GOOD));
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('https://shop-a.example/');
    const next = /name="next" value="([^"]+)"/.exec(page.body)![1]!.replaceAll('&amp;', '&');
    expect(next).toBe(connectPath(GOOD));
    const res = await owner.post('/dashboard/sign-in', { email: ownerEmail, password: PASSWORD, next, _csrf: csrfOf(page.body)! });
    expect(res.headers.location).toBe(connectPath(GOOD));
    const approval = await owner.get(res.headers.location as string);
    expect(approval.body).toContain('Connect it to');
    expect(approval.headers['content-security-policy']).toContain("form-action 'self' https://shop-a.example;");
  });

  it('approve with a new store sends the browser back with svc_code and state, keeping return_url’s own query', async () => {
    const c = await signedIn();
    const res = await submit(c, { decision: 'approve', store: 'new', new_name: 'Shop A store', new_currency: 'eur' });
    expect(res.statusCode).toBe(303);
    const back = new URL(res.headers.location as string);
    expect(`${back.origin}${back.pathname}`).toBe('https://shop-a.example/wp-admin/admin.php');
    expect(back.searchParams.get('page')).toBe('svc');
    expect(back.searchParams.get('state')).toBe('st-1');
    const code = back.searchParams.get('svc_code')!;
    expect(code.length).toBeGreaterThanOrEqual(40);
    const exchange = await t.request({ method: 'POST', url: '/api/v1/connect/exchange', payload: { code, site_url: SITE } });
    expect(exchange.statusCode).toBe(200);
    expect(exchange.json().store).toMatchObject({ name: 'Shop A store' });
    const [store] = await t.orm.em
      .fork()
      .execute<{ currency: string }[]>(`select currency from stores where id = ?`, [exchange.json().store.id]);
    expect(store!.currency).toBe('EUR');
  });

  it('decline sends the browser back with svc_error=access_denied and state, and issues no code', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    const res = await submit(c, { decision: 'decline', store: storeId });
    expect(res.statusCode).toBe(303);
    const back = new URL(res.headers.location as string);
    expect(back.searchParams.get('svc_error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.has('svc_code')).toBe(false);
    expect(await codesOf(storeId)).toBe(0);
  });

  it('a store at its plan’s limit goes back with svc_error=plan_limit and no code; after the operator moves it to the paid plan it connects', async () => {
    const c = await signedIn();
    const storeId = await c.createStore();
    await createTestConnection(t.orm, storeId, 'platform_b', 'https://other-shop.example');
    const full = await submit(c, { decision: 'approve', store: storeId });
    expect(full.statusCode).toBe(303);
    const back = new URL(full.headers.location as string);
    expect(back.searchParams.get('svc_error')).toBe('plan_limit');
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(await codesOf(storeId)).toBe(0);
    await setStorePlan(t.orm.em.fork(), storeId, 'paid', null);
    const ok = await submit(c, { decision: 'approve', store: storeId });
    expect(ok.statusCode).toBe(303);
    expect(new URL(ok.headers.location as string).searchParams.has('svc_code')).toBe(true);
  });

  it('only the owner’s own stores can receive a code', async () => {
    const owner = await signedIn();
    const theirs = await owner.createStore();
    const intruder = await signedIn();
    const res = await submit(intruder, { decision: 'approve', store: theirs });
    expect(res.statusCode).toBe(303);
    expect(new URL(res.headers.location as string).searchParams.get('svc_error')).toBe('invalid_request');
    expect(await codesOf(theirs)).toBe(0);
  });
});
