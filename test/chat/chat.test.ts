import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { eventually, startReceiver, type Received } from '../helpers/receiver.js';
import { addKey } from '../helpers/store.js';
import { PageClient } from '../dashboard/client.js';
import { orderBody, ordersApi } from '../orders/fixtures.js';

const TOKEN = 'EAAGtest-token_0123456789';
const PHONE_NUMBER_ID = '106540352242922';

let t: TestApp;
let api: Awaited<ReturnType<typeof startReceiver>>;
/** What the loopback chat API found wrong in each request (empty when the shape and auth are right). */
const problems = new Map<Received, string[]>();

/** Checks a request as the WhatsApp Cloud API message endpoint would: path, bearer token, JSON body shape. */
function checkMessage(req: Received): string[] {
  const wrong: string[] = [];
  if (req.method !== 'POST') wrong.push(`method ${req.method}`);
  if (!/^\/v23\.0\/106540352242922\/messages$/.test(req.path)) wrong.push(`path ${req.path}`);
  if (req.headers.authorization !== `Bearer ${TOKEN}`) wrong.push('authorization');
  if (!String(req.headers['content-type']).startsWith('application/json')) wrong.push('content-type');
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(req.body);
  } catch {
    wrong.push('body is not JSON');
  }
  if (body.messaging_product !== 'whatsapp') wrong.push('messaging_product');
  if (typeof body.to !== 'string' || !/^[1-9]\d{7,14}$/.test(body.to)) wrong.push('to');
  if (body.type !== 'template' && body.type !== 'text') wrong.push('type');
  return wrong;
}

beforeAll(async () => {
  t = await createTestApp();
  api = await startReceiver((req, res: ServerResponse) => {
    const wrong = checkMessage(req);
    problems.set(req, wrong);
    if (req.body.includes('"212600000400"'))
      return void res
        .writeHead(400, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: '(#132001) Template name does not exist in the translation', code: 132001 } }));
    if (wrong.length) return void res.writeHead(401).end(JSON.stringify({ error: { message: wrong.join(', ') } }));
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ messaging_product: 'whatsapp', contacts: [{ input: '', wa_id: '' }], messages: [{ id: 'wamid.TEST' }] }));
  });
});
afterAll(async () => {
  await api.close();
  await t.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const setPlan = (storeId: string, plan: 'free' | 'paid') =>
  t.orm.em.fork().execute(`update stores set plan = ? where id = ?`, [plan, storeId]);
const messagesOf = (orderId: string) =>
  t.orm.em
    .fork()
    .execute<{ channel: string; status: string; detail: string }[]>(
      `select channel, status, detail from order_messages where order_id = ?`,
      [orderId],
    );
const outboxFor = (workflowId: string) =>
  t.orm.em.fork().execute<{ id: string }[]>(`select id from outbox where workflow_id = ?`, [workflowId]);

/** A signed-in owner whose store has chat messages set up from the dashboard (paid unless told). */
async function storeWithChat(opts: { plan?: 'free' | 'paid'; template?: string; shipped?: string } = {}) {
  const c = new PageClient(t);
  await c.signUp();
  const storeId = await c.createStore();
  await setPlan(storeId, opts.plan ?? 'paid');
  const from = `/dashboard/stores/${storeId}/notifications`;
  const saved = await c.post(
    `/dashboard/stores/${storeId}/notifications/chat`,
    {
      enabled: 'on',
      base_url: api.url('/'),
      api_version: 'v23.0',
      phone_number_id: PHONE_NUMBER_ID,
      token: TOKEN,
      template_name: opts.template ?? 'order_created',
      template_language: 'fr',
      shipped_template_name: opts.shipped ?? '',
    },
    { from },
  );
  expect(saved.statusCode, saved.body.slice(0, 300)).toBe(303);
  const key = await addKey(t.orm, storeId, { kind: 'secret' });
  return { c, storeId, from, orders: ordersApi(t, key.key) };
}

const toNumber = (to: string) => api.received.filter((r) => r.body.includes(`"to":"${to}"`));

describe('chat order messages (WhatsApp Cloud API message endpoint)', () => {
  it('a new order of a paid store sends the shopper one template message with the order number and total, and the dashboard shows it sent', async () => {
    const s = await storeWithChat();
    const created = await s.orders.post(
      orderBody({
        number: '#7001',
        totals: { total: 250, shipping: 0, discount: 0 },
        customer: { name: 'Sara', phone: '+212 600-000 100', address_line1: 'Rue 2', city: 'Rabat', country: 'MA' },
      }),
    );
    expect(created.statusCode).toBe(201);
    const orderId = created.json().order.id as string;
    await eventually(() => toNumber('212600000100').length === 1, 20_000, 'the chat message');
    const req = toNumber('212600000100')[0]!;
    expect(problems.get(req)).toEqual([]);
    expect(JSON.parse(req.body)).toEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '212600000100',
      type: 'template',
      template: {
        name: 'order_created',
        language: { code: 'fr' },
        components: [
          {
            type: 'body',
            parameters: [
              { type: 'text', text: '#7001' },
              { type: 'text', text: '250.00 MAD' },
            ],
          },
        ],
      },
    });
    await eventually(async () => (await messagesOf(orderId))[0]?.status === 'sent', 10_000, 'the recorded outcome');
    const page = await s.c.get(`/dashboard/stores/${s.storeId}/orders/${orderId}`);
    expect(page.body).toContain('Chat message (shopper)');
    expect(page.body).toContain('sent to +212600000100 (template order_created)');

    // Once per order: an update of the same order sends nothing more.
    await s.orders.post({ ...orderBody({ number: '#7001' }), external_id: created.json().order.external_id, status: 'confirmed' });
    await sleep(2500);
    expect(toNumber('212600000100')).toHaveLength(1);
    expect(await outboxFor(`order-chat/${orderId}`)).toHaveLength(1);
  });

  it('without a template name the message is plain text', async () => {
    const s = await storeWithChat({ template: '' });
    await s.orders.post(orderBody({ customer: { name: 'Y', phone: '00212600000200', city: 'Fes', country: 'MA' } }));
    await eventually(() => toNumber('212600000200').length === 1, 20_000, 'the text message');
    const body = JSON.parse(toNumber('212600000200')[0]!.body);
    expect(body.type).toBe('text');
    expect(body.text.body).toMatch(/we received your order #\d+ \(59\.97 MAD\)/);
  });

  it('backfill orders never send one', async () => {
    const s = await storeWithChat();
    const batch = await s.orders.batch([orderBody({ customer: { name: 'B', phone: '+212600000300', country: 'MA' } })], true);
    const id = batch.json().results[0].id as string;
    await sleep(3000);
    expect(toNumber('212600000300')).toHaveLength(0);
    expect(await outboxFor(`order-chat/${id}`)).toHaveLength(0);
    expect(await messagesOf(id)).toHaveLength(0);
  });

  it('a refusal of the chat API is recorded as failed with its reason, never retried', async () => {
    const s = await storeWithChat();
    const id = (await s.orders.post(orderBody({ customer: { name: 'F', phone: '+212600000400', country: 'MA' } }))).json().order
      .id as string;
    await eventually(async () => (await messagesOf(id))[0]?.status === 'failed', 20_000, 'the failed outcome');
    expect((await messagesOf(id))[0]!.detail).toMatch(/^answered 400: .*Template name does not exist/);
    await sleep(2000);
    expect(toNumber('212600000400')).toHaveLength(1);
    expect((await s.c.get(`/dashboard/stores/${s.storeId}/orders/${id}`)).body).toContain('Template name does not exist');
  });

  it('a phone not in international form is skipped, with the reason shown', async () => {
    const s = await storeWithChat();
    const id = (await s.orders.post(orderBody({ customer: { name: 'L', phone: '0612345678', country: 'MA' } }))).json().order.id as string;
    await eventually(async () => (await messagesOf(id))[0]?.status === 'skipped', 20_000, 'the skipped outcome');
    expect((await messagesOf(id))[0]!.detail).toMatch(/not in international form/);
  });
});

describe('a store sends a bounded number of chat messages', () => {
  it('past its hourly limit an order gets no message, and the order says why', async () => {
    const s = await storeWithChat();
    // The hour's earlier messages, as the table holds them (anyone can place orders with any phone number).
    await t.orm.em.fork().execute(
      `insert into order_messages (store_id, order_id, channel, occasion, status, created_at)
       select ?, gen_random_uuid(), 'chat', 'created', 'sent', now() - interval '30 minutes' from generate_series(1, 200)`,
      [s.storeId],
    );
    const id = (await s.orders.post(orderBody({ customer: { name: 'R', phone: '+212600000500', country: 'MA' } }))).json().order
      .id as string;
    await eventually(async () => (await messagesOf(id))[0]?.status === 'skipped', 20_000, 'the skipped outcome');
    expect((await messagesOf(id))[0]!.detail).toBe('the store reached its limit of 200 chat messages an hour');
    expect(toNumber('212600000500')).toHaveLength(0);
    // Messages older than an hour no longer count.
    await t.orm.em
      .fork()
      .execute(`update order_messages set created_at = now() - interval '2 hours' where store_id = ? and order_id <> ?`, [s.storeId, id]);
    await s.orders.post(orderBody({ customer: { name: 'R', phone: '+212600000501', country: 'MA' } }));
    await eventually(() => toNumber('212600000501').length === 1, 20_000, 'the message once the hour passed');
  });
});

describe('the chat message when the order ships', () => {
  it('goes out once, with the shipped template, the order number and its tracking page, when the store named that template', async () => {
    const s = await storeWithChat({ shipped: 'order_shipped' });
    const id = (await s.orders.post(orderBody({ number: '#7101', customer: { name: 'S', phone: '+212600000800', country: 'MA' } }))).json()
      .order.id as string;
    await eventually(() => toNumber('212600000800').length === 1, 20_000, 'the created message');
    expect((await s.orders.patch(id, { status: 'shipped' })).statusCode).toBe(200);
    await eventually(() => toNumber('212600000800').length === 2, 20_000, 'the shipped message');
    const shipped = toNumber('212600000800')[1]!;
    expect(problems.get(shipped)).toEqual([]);
    const template = JSON.parse(shipped.body).template;
    expect(template).toMatchObject({ name: 'order_shipped', language: { code: 'fr' } });
    const [number, tracking] = template.components[0].parameters;
    expect(number).toEqual({ type: 'text', text: '#7101' });
    // The tracking page on the worker's PUBLIC_URL (the test worker runs with its own; a deployment gives both the same).
    expect(tracking.type).toBe('text');
    expect(tracking.text).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/track/${id}$`));
    await eventually(
      async () => (await messagesOf(id)).length === 2 && (await messagesOf(id)).every((m) => m.status === 'sent'),
      10_000,
      'both outcomes',
    );
    // Back in transit after a failed delivery attempt is another order.shipped event: no second message.
    expect((await s.orders.patch(id, { status: 'out_for_delivery' })).statusCode).toBe(200);
    expect((await s.orders.patch(id, { status: 'shipped' })).statusCode).toBe(200);
    await sleep(2500);
    expect(toNumber('212600000800')).toHaveLength(2);
    expect(await outboxFor(`order-chat/${id}/shipped`)).toHaveLength(2);
    const page = await s.c.get(`/dashboard/stores/${s.storeId}/orders/${id}`);
    expect(page.body).toContain('sent to +212600000800 (template order_shipped)');
  });

  it('is not sent, nor handed to Temporal, when the store named no template for it', async () => {
    const s = await storeWithChat();
    const id = (await s.orders.post(orderBody({ customer: { name: 'T', phone: '+212600000900', country: 'MA' } }))).json().order
      .id as string;
    await eventually(() => toNumber('212600000900').length === 1, 20_000, 'the created message');
    expect((await s.orders.patch(id, { status: 'shipped' })).statusCode).toBe(200);
    await sleep(2500);
    expect(toNumber('212600000900')).toHaveLength(1);
    expect(await outboxFor(`order-chat/${id}/shipped`)).toHaveLength(0);
  });
});

describe('paid plans only', () => {
  it('a free store cannot turn chat messages on', async () => {
    const s = await storeWithChat({ plan: 'free' });
    const [row] = await t.orm.em
      .fork()
      .execute<{ enabled: boolean }[]>(`select enabled from chat_settings where store_id = ?`, [s.storeId]);
    expect(row!.enabled).toBe(false);
    const page = await s.c.get(s.from);
    expect(page.body).toContain('paid plans only');
    const id = (await s.orders.post(orderBody({ customer: { name: 'N', phone: '+212600000500', country: 'MA' } }))).json().order
      .id as string;
    await sleep(2500);
    expect(toNumber('212600000500')).toHaveLength(0);
    expect(await outboxFor(`order-chat/${id}`)).toHaveLength(0);
  });

  it('a store back on the free plan sends nothing; the order says why', async () => {
    const s = await storeWithChat();
    await setPlan(s.storeId, 'free');
    const id = (await s.orders.post(orderBody({ customer: { name: 'P', phone: '+212600000600', country: 'MA' } }))).json().order
      .id as string;
    await eventually(async () => (await messagesOf(id))[0]?.status === 'skipped', 20_000, 'the skipped outcome');
    expect((await messagesOf(id))[0]!.detail).toBe('chat order messages are for paid plans only');
    expect(toNumber('212600000600')).toHaveLength(0);
  });
});

describe('chat settings', () => {
  it('keep the token sealed and never show it; an empty token field keeps the stored one', async () => {
    const s = await storeWithChat();
    const [row] = await t.orm.em
      .fork()
      .execute<{ token_sealed: string }[]>(`select token_sealed from chat_settings where store_id = ?`, [s.storeId]);
    expect(row!.token_sealed).toMatch(/^v1\./);
    expect(row!.token_sealed).not.toContain(TOKEN);
    const page = await s.c.get(s.from);
    expect(page.body).not.toContain(TOKEN);
    expect(page.body).toContain('one is stored; leave empty to keep it');
    const again = await s.c.post(
      `/dashboard/stores/${s.storeId}/notifications/chat`,
      {
        enabled: 'on',
        base_url: api.url('/'),
        api_version: 'v23.0',
        phone_number_id: PHONE_NUMBER_ID,
        token: '',
        template_name: 'order_created',
        template_language: 'fr',
      },
      { from: s.from },
    );
    expect(again.statusCode).toBe(303);
    await s.orders.post(orderBody({ customer: { name: 'K', phone: '+212600000700', country: 'MA' } }));
    await eventually(() => toNumber('212600000700').length === 1, 20_000, 'the message with the kept token');
    expect(problems.get(toNumber('212600000700')[0]!)).toEqual([]);
  });

  it('refuse a base URL that breaks the outbound-address rules of webhooks', async () => {
    const s = await storeWithChat();
    for (const base of ['http://10.0.0.1', 'https://private.example', 'http://127.0.0.2:8080', 'ftp://example.com']) {
      const res = await s.c.post(
        `/dashboard/stores/${s.storeId}/notifications/chat`,
        {
          enabled: 'on',
          base_url: base,
          api_version: 'v23.0',
          phone_number_id: PHONE_NUMBER_ID,
          token: TOKEN,
          template_name: '',
          template_language: 'en_US',
        },
        { from: s.from },
      );
      expect(res.statusCode, base).toBe(400);
      expect(res.body).toContain('Base URL:');
    }
  });
});
