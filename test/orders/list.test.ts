import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { createTestConnection, createTestStore, type TestStore } from '../helpers/store.js';
import { errorOf, orderBody, ordersApi, sql } from './fixtures.js';

let t: TestApp;
let s: TestStore;
let api: ReturnType<typeof ordersApi>;
let other: ReturnType<typeof ordersApi>;
/** 60 orders of store s, newest first as the API must list them. */
let expected: string[] = [];
const base = Date.parse('2026-03-01T00:00:00Z');

beforeAll(async () => {
  t = await createTestApp();
  s = await createTestStore(t.orm, { plan: 'paid' });
  api = ordersApi(t, s.secret);
  // Groups of three share a created_at, so ties are broken by id.
  const bodies = Array.from({ length: 60 }, (_, i) => orderBody({ created_at: new Date(base + Math.floor(i / 3) * 60_000).toISOString() }));
  const ids: string[] = [];
  for (const chunk of [bodies.slice(0, 50), bodies.slice(50)]) {
    ids.push(...(await api.batch(chunk)).json().results.map((r: { id: string }) => r.id));
  }
  expected = ids
    .map((id, i) => ({ id, at: Math.floor(i / 3) }))
    .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
    .map((o) => o.id);
  const o = await createTestStore(t.orm, { plan: 'paid' });
  other = ordersApi(t, o.secret);
  await other.batch(Array.from({ length: 30 }, () => orderBody()));
});
afterAll(() => t.close());

const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((o) => o.id);

describe('GET /orders lists newest first and pages by cursor', () => {
  it('lists newest first by (created_at, id) with 25 orders by default', async () => {
    const res = await api.list();
    expect(res.statusCode).toBe(200);
    expect(ids(res)).toEqual(expected.slice(0, 25));
    expect(res.json().has_more).toBe(true);
    expect(typeof res.json().next_cursor).toBe('string');
  });

  it('pages through 60 orders with limit 25, visiting each exactly once, ending with has_more false and a null cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await api.list(`limit=25${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      seen.push(...page.data.map((o: { id: string }) => o.id));
      cursor = page.next_cursor;
      expect(cursor === null).toBe(!page.has_more);
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(expected);
  });

  it('pages exactly through orders created within one millisecond (microsecond positions)', async () => {
    const shop = ordersApi(t, (await createTestStore(t.orm)).secret);
    const made = (await shop.batch([orderBody(), orderBody(), orderBody()])).json().results.map((r: { id: string }) => r.id);
    // Orders written by other paths (checkout) keep PostgreSQL's microseconds.
    for (const [i, id] of made.entries())
      await sql(t, `update orders set created_at = ?::timestamptz where id = ?`, [`2026-01-01T00:00:00.12310${i}Z`, id]);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { data: { id: string }[]; next_cursor: string | null } = (
        await shop.list(`limit=1${cursor ? `&cursor=${cursor}` : ''}`)
      ).json();
      seen.push(...page.data.map((o) => o.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toEqual([...made].reverse());
  });

  it('accepts limit 1 and 100', async () => {
    expect(ids(await api.list('limit=1'))).toEqual(expected.slice(0, 1));
    const all = await api.list('limit=100');
    expect(ids(all)).toEqual(expected);
    expect(all.json()).toMatchObject({ has_more: false, next_cursor: null });
  });

  it.each(['0', '101', 'abc', '2.5', ''])('refuses limit=%s with 400 param limit', async (limit) => {
    expect(errorOf(await api.list(`limit=${limit}`))).toEqual({ status: 400, code: 'invalid_request', param: 'limit' });
  });

  it('refuses a tampered cursor with 400 param cursor', async () => {
    const cursor = (await api.list('limit=2')).json().next_cursor as string;
    const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    for (const bad of [
      'abc',
      `${cursor}x`,
      Buffer.from(JSON.stringify({ ...decoded, id: 'x' })).toString('base64url'),
      Buffer.from('{"v":2}').toString('base64url'),
    ]) {
      expect(errorOf(await api.list(`cursor=${encodeURIComponent(bad)}`))).toEqual({
        status: 400,
        code: 'invalid_request',
        param: 'cursor',
      });
    }
  });

  it('refuses an unknown query parameter with 400 naming it', async () => {
    expect(errorOf(await api.list('colour=blue'))).toEqual({ status: 400, code: 'invalid_request', param: 'colour' });
  });
});

describe('GET /orders filters', () => {
  it('filters by status, source and external_id', async () => {
    const conn = await createTestConnection(t.orm, s.store.id, 'platform_b');
    const shipped = (await ordersApi(t, conn.key).post(orderBody({ status: 'fulfilled', created_at: '2020-01-01T00:00:00Z' }))).json()
      .order;
    expect(ids(await api.list('status=shipped'))).toEqual([shipped.id]);
    expect(ids(await api.list('source=platform_b'))).toEqual([shipped.id]);
    expect(ids(await api.list(`external_id=${shipped.external_id}`))).toEqual([shipped.id]);
    expect((await api.list('source=api&limit=100')).json().data).toHaveLength(60);
    expect(errorOf(await api.list('status=lost'))).toMatchObject({ status: 400, param: 'status' });
    expect(errorOf(await api.list('source=shopify'))).toMatchObject({ status: 400, param: 'source' });
  });

  it('filters by created_since and updated_since, and refuses a bad date naming it', async () => {
    const since = new Date(base + 15 * 60_000).toISOString();
    expect(ids(await api.list(`created_since=${since}&limit=100`))).toEqual(expected.slice(0, 15));
    const before = new Date(Date.now() - 1000).toISOString();
    const touched = (await api.post(orderBody({ created_at: '2019-01-01T00:00:00Z' }))).json().order;
    expect(ids(await api.list(`updated_since=${encodeURIComponent(before)}&limit=100`))).toContain(touched.id);
    expect(ids(await api.list(`updated_since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`))).toEqual([]);
    expect(errorOf(await api.list('created_since=last-week'))).toMatchObject({ status: 400, param: 'created_since' });
    expect(errorOf(await api.list('updated_since=2026-02-30T00:00:00Z'))).toMatchObject({ status: 400, param: 'updated_since' });
    // A date PostgreSQL cannot read (there is no year 0) is the client's bad value, named, not a 500.
    expect(errorOf(await api.list('created_since=0000-01-01T00:00:00Z'))).toMatchObject({ status: 400, param: 'created_since' });
  });

  it('omits archived orders unless include_archived=true; any other value is 400', async () => {
    const { order } = (await api.post(orderBody({ created_at: '2018-01-01T00:00:00Z' }))).json();
    await api.archive(order.id);
    expect(ids(await api.list(`external_id=${order.external_id}`))).toEqual([]);
    expect(ids(await api.list(`external_id=${order.external_id}&include_archived=true`))).toEqual([order.id]);
    for (const v of ['false', '1', 'TRUE', '']) {
      expect(errorOf(await api.list(`include_archived=${v}`))).toMatchObject({ status: 400, param: 'include_archived' });
    }
  });
});

describe('GET /orders never shows another store’s orders', () => {
  it('lists only the key’s store', async () => {
    const mine = new Set(ids(await api.list('limit=100&include_archived=true')));
    const theirs = ids(await other.list('limit=100'));
    expect(theirs).toHaveLength(30);
    expect(theirs.some((id) => mine.has(id))).toBe(false);
  });

  it('another store’s cursor only moves within the caller’s own orders', async () => {
    const theirCursor = (await other.list('limit=5')).json().next_cursor as string;
    const res = await api.list(`limit=100&cursor=${encodeURIComponent(theirCursor)}`);
    expect(res.statusCode).toBe(200);
    const theirs = new Set(ids(await other.list('limit=100')));
    expect(ids(res).some((id) => theirs.has(id))).toBe(false);
  });
});
