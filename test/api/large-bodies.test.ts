// Large JSON bodies take turns: at most LARGE_BODIES_AT_ONCE are parsed and handled at once, so the
// memory they take stays bounded however many connections send them; the others wait and are answered.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../api/access.js';
import {
  LARGE_BODIES_AT_ONCE,
  LARGE_BODY_BYTES,
  LARGE_BODY_TURNS_PER_OWNER,
  LARGE_BODY_WAITING,
  SLOW_BODY_MS,
  Turns,
} from '../../api/plugins/raw-json-body.js';
import { bearer } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { buildPlumbingApp, type PlumbingApp } from './plumbing-app.js';

/** How long a test waits for something that happens in a few milliseconds on an idle machine: an upper bound
 * for a loaded one, not a timing claim (those live in the bench). */
const WAIT_MS = 60_000;

describe('turns', () => {
  it('gives at most its size at once, the others in the order they came', async () => {
    const turns = new Turns(2);
    const order: number[] = [];
    const entries = [1, 2, 3, 4].map((n) => {
      const turn = turns.enter();
      void turn.given.then((given) => given && order.push(n));
      return turn;
    });
    await Promise.resolve();
    expect(order).toEqual([1, 2]);
    expect(turns.counts).toEqual({ holding: 2, waiting: 2 });
    entries[1]!.leave();
    await Promise.resolve();
    expect(order).toEqual([1, 2, 3]);
    entries[0]!.leave();
    await Promise.resolve();
    expect(order).toEqual([1, 2, 3, 4]);
    for (const e of entries) e.leave();
    expect(turns.counts).toEqual({ holding: 0, waiting: 0 });
  });

  it('leaving while waiting gives the place up (no turn is given to it later); leaving twice changes nothing', async () => {
    const turns = new Turns(1);
    const first = turns.enter();
    const second = turns.enter();
    const third = turns.enter();
    second.leave();
    second.leave();
    expect(await second.given).toBe(false);
    expect(turns.counts).toEqual({ holding: 1, waiting: 1 });
    first.leave();
    first.leave();
    expect(await third.given).toBe(true);
    expect(turns.counts).toEqual({ holding: 1, waiting: 0 });
    third.leave();
    expect(turns.counts).toEqual({ holding: 0, waiting: 0 });
  });
});

describe('turns are shared fairly between stores, in bounded lines', () => {
  it('a store at its share waits behind its own line while another store is served first, round-robin', async () => {
    const turns = new Turns(4, 2, { total: 10, perOwner: 5 });
    const order: string[] = [];
    const enter = (owner: string, tag: string) => {
      const turn = turns.enter(owner);
      void turn.given.then((given) => given && order.push(tag));
      return turn;
    };
    // Alone, store A may take every turn; its fifth waits.
    const a = [1, 2, 3, 4, 5, 6].map((n) => enter('A', `A${n}`));
    await Promise.resolve();
    expect(order).toEqual(['A1', 'A2', 'A3', 'A4']);
    // B arrives: it waits for a turn, but A (over its share) never takes one before B does.
    const b = enter('B', 'B1');
    a[0]!.leave();
    await Promise.resolve();
    expect(order).toEqual(['A1', 'A2', 'A3', 'A4', 'B1']);
    a[1]!.leave();
    await Promise.resolve();
    expect(order.at(-1)).toBe('A5');
    for (const turn of [...a, b]) turn.leave();
    expect(turns.counts).toEqual({ holding: 0, waiting: 0 });
  });

  it('a full line refuses at once (full), per store and in all; nothing is held for it', () => {
    const turns = new Turns(1, 1, { total: 3, perOwner: 2 });
    const held = turns.enter('A');
    expect([turns.enter('A').full, turns.enter('A').full, turns.enter('A').full]).toEqual([false, false, true]);
    expect([turns.enter('B').full, turns.enter('C').full]).toEqual([false, true]);
    expect(turns.counts).toEqual({ holding: 1, waiting: 3 });
    held.leave();
  });
});

let t: PlumbingApp;
let s: TestStore;
let baseUrl: string;
/** Requests inside the handler, by id; each waits until released. */
const inside = new Map<string, () => void>();
beforeAll(async () => {
  t = await buildPlumbingApp({
    routes(app) {
      const access = ENDPOINTS['POST /orders'];
      app.post('/api/v1/__hold', { config: { access } }, async (request) => {
        const { id } = request.body as { id: string };
        await new Promise<void>((release) => inside.set(id, release));
        return { id };
      });
    },
  });
  s = await createTestStore(t.orm, { plan: 'paid' });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  baseUrl = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
});
afterAll(() => t.close());

const largeBody = (id: string) => JSON.stringify({ id, pad: 'x'.repeat(LARGE_BODY_BYTES) });
const hold = (body: string) =>
  t.request({ method: 'POST', url: '/api/v1/__hold', payload: body, headers: { ...bearer(s.secret), 'content-type': 'application/json' } });
const release = (id: string) => {
  inside.get(id)!();
  inside.delete(id);
};

/**
 * A real HTTP request whose client can go away: `abort` closes its connection. `declared` sends a
 * Content-Length and `sent` only that many bytes until `finish`; `chunked` sends the body in chunks with none.
 */
function holdOverHttp(body: string, how: { chunked?: boolean; sent?: number } = {}) {
  const request = http.request(`${baseUrl}/api/v1/__hold`, {
    method: 'POST',
    headers: {
      ...bearer(s.secret),
      'content-type': 'application/json',
      ...(how.chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(Buffer.byteLength(body)) }),
    },
  });
  const answered = new Promise<number | 'aborted'>((done) => {
    request.on('response', (res) => (res.resume(), done(res.statusCode!)));
    request.on('error', () => done('aborted'));
  });
  if (how.sent !== undefined) {
    request.write(body.slice(0, how.sent));
    return { answered, abort: () => request.destroy(), finish: () => request.end(body.slice(how.sent)) };
  }
  if (how.chunked) {
    const half = body.length >> 1;
    request.write(body.slice(0, half));
    setTimeout(() => request.end(body.slice(half)), 20);
  } else request.end(body);
  return { answered, abort: () => request.destroy(), finish: () => undefined };
}

describe('large JSON bodies take turns', () => {
  it(`at most ${LARGE_BODIES_AT_ONCE} are handled at once; the others wait, unparsed, and are all answered in turn`, async () => {
    const ids = Array.from({ length: LARGE_BODIES_AT_ONCE + 2 }, (_, i) => `big-${i}`);
    const responses = ids.map((id) => hold(largeBody(id)));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE && t.app.largeBodyTurns.counts.waiting === 2, WAIT_MS, 'turns taken');
    expect(t.app.largeBodyTurns.counts).toEqual({ holding: LARGE_BODIES_AT_ONCE, waiting: 2 });

    // A small body never waits for a turn.
    const small = hold(JSON.stringify({ id: 'small' }));
    await eventually(() => inside.has('small'), WAIT_MS, 'the small body handled');
    release('small');
    expect((await small).statusCode).toBe(200);

    const first = [...inside.keys()][0]!;
    release(first);
    await eventually(
      () => inside.size === LARGE_BODIES_AT_ONCE && t.app.largeBodyTurns.counts.waiting === 1,
      10_000,
      'the next one let in',
    );
    while (inside.size > 0 || t.app.largeBodyTurns.counts.waiting > 0) {
      for (const id of [...inside.keys()]) release(id);
      await new Promise((r) => setTimeout(r, 20));
    }
    const answers = await Promise.all(responses);
    expect(answers.map((r) => r.statusCode)).toEqual(ids.map(() => 200));
    expect(answers.map((r) => r.json().id)).toEqual(ids);
    expect(t.app.largeBodyTurns.counts).toEqual({ holding: 0, waiting: 0 });
  });

  it('a body whose Content-Length says it is large waits for its turn before it is read (its bytes stay with the client)', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`early-${i}`)));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, WAIT_MS, 'turns taken');
    // Only the headers and 10 bytes are sent: it is in the queue all the same, so nothing of it was buffered to decide.
    // Each is in line before the next is sent: on separate connections, the server could otherwise take them
    // in another order (each one's key is checked by a query of its own first), and the line's order is
    // what this test follows.
    const early = holdOverHttp(largeBody('early-waiting'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 1, WAIT_MS, 'the first in line before its body came');
    // A client that gives up while its unread body waits is only noticed when its turn comes: the read fails, nothing is handled.
    const quitter = holdOverHttp(largeBody('early-quitter'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 2, WAIT_MS, 'the second in line');
    const last = holdOverHttp(largeBody('early-last'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 3, WAIT_MS, 'queued before their bodies came');
    quitter.abort();
    early.finish();
    last.finish();
    release('early-0');
    await eventually(() => inside.has('early-waiting'), WAIT_MS, 'let in once a turn is free');
    release('early-1');
    await eventually(() => inside.has('early-last'), WAIT_MS, 'the quitter passed over, the next one let in');
    expect(inside.has('early-quitter')).toBe(false);
    for (const id of [...inside.keys()]) release(id);
    expect(await quitter.answered).toBe('aborted');
    expect(await Promise.all([...holders, early, last].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE + 2).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, WAIT_MS, 'every turn back');
  });

  it(`a client slow to send its declared large body gives its turn back after ${SLOW_BODY_MS} ms, and is handled once its body is in`, async () => {
    const slow = holdOverHttp(largeBody('slow'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.holding === 1, WAIT_MS, 'turn given before the body');
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, SLOW_BODY_MS + WAIT_MS, 'turn given back');
    slow.finish();
    await eventually(() => inside.has('slow'), WAIT_MS, 'handled once received');
    expect(t.app.largeBodyTurns.counts.holding).toBe(1);
    release('slow');
    expect(await slow.answered).toBe(200);
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, WAIT_MS, 'every turn back');
  });

  it('a large chunked body (no Content-Length) takes its turn once received', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`chunked-${i}`), { chunked: true }));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, WAIT_MS, 'turns taken');
    const late = holdOverHttp(largeBody('chunked-waiting'), { chunked: true });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 1, WAIT_MS, 'waiting, received but unparsed');
    expect(inside.has('chunked-waiting')).toBe(false);
    for (const id of [...inside.keys()]) release(id);
    await eventually(() => inside.has('chunked-waiting'), WAIT_MS, 'let in');
    release('chunked-waiting');
    expect(await Promise.all([...holders, late].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE + 1).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, WAIT_MS, 'every turn back');
  });

  it('a client that goes away gives its turn back, whether it was being handled or still waiting', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`gone-${i}`)));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, WAIT_MS, 'turns taken');
    // Chunked: received while waiting, so the server sees at once that the client went away.
    const waiting = holdOverHttp(largeBody('gone-waiting'), { chunked: true });
    const next = holdOverHttp(largeBody('gone-next'), { chunked: true });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 2, WAIT_MS, 'two waiting');

    // Gone while waiting: its place is given up, nothing of it is handled.
    waiting.abort();
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 1, WAIT_MS, 'the place given up');
    // Gone while handled (its handler still running): the turn comes back at once and the next one is let in.
    holders[0]!.abort();
    await eventually(() => inside.has('gone-next'), WAIT_MS, 'the next one let in');
    expect(inside.has('gone-waiting')).toBe(false);

    for (const id of [...inside.keys()]) release(id);
    expect(await waiting.answered).toBe('aborted');
    expect(await holders[0]!.answered).toBe('aborted');
    expect(await Promise.all([...holders.slice(1), next].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, WAIT_MS, 'every turn back');
    expect(t.app.largeBodyTurns.counts).toEqual({ holding: 0, waiting: 0 });
  });
});

/** A request that declares a large body and sends none of it (it stalls); its answer with its headers. */
function stalled(base: string, path: string, key: string | null, declared = 1_048_576, contentType = 'application/json') {
  const request = http.request(`${base}${path}`, {
    method: 'POST',
    headers: { ...(key ? bearer(key) : {}), 'content-type': contentType, 'content-length': String(declared) },
  });
  const answered = new Promise<{ status: number; retryAfter?: string } | 'aborted'>((done) => {
    request.on('response', (res) => (res.resume(), done({ status: res.statusCode!, retryAfter: res.headers['retry-after'] as string })));
    request.on('error', () => done('aborted'));
  });
  request.flushHeaders();
  return { answered, abort: () => request.destroy() };
}

describe('one store’s stalled large bodies never hold up another store (issue 23, item 4)', () => {
  it('30 bodiless POSTs declaring 1 MB with store A’s key: B’s 400 KB order is let in while A’s line still waits; beyond A’s line, 503 with Retry-After', async () => {
    const b = await createTestStore(t.orm, { plan: 'paid' });
    const flood = Array.from({ length: 30 }, () => stalled(baseUrl, '/api/v1/__hold', s.secret));
    const refusedCount = 30 - LARGE_BODIES_AT_ONCE - LARGE_BODY_WAITING.perOwner;
    await eventually(() => t.app.largeBodyTurns.counts.waiting > 0, WAIT_MS, 'A’s line formed');
    const order = JSON.stringify({ id: 'b-order', pad: 'x'.repeat(400 * 1024) });
    const bOrder = t.request({
      method: 'POST',
      url: '/api/v1/__hold',
      payload: order,
      headers: { ...bearer(b.secret), 'content-type': 'application/json' },
    });
    await eventually(() => inside.has('b-order'), WAIT_MS, 'B’s order let in');
    // Let in before A's line emptied: it never waited behind A's stalled bodies.
    expect(t.app.largeBodyTurns.counts.waiting).toBeGreaterThan(0);
    release('b-order');
    expect((await bOrder).statusCode).toBe(200);
    for (const f of flood) f.abort();
    const answers = await Promise.all(flood.map((f) => f.answered));
    const full = answers.filter((a) => a !== 'aborted' && a.status === 503) as { retryAfter?: string }[];
    // All 30 at once leave refusedCount without a place; on a slow machine A's line moves meanwhile, so some may fit.
    expect(full.length).toBeGreaterThan(0);
    expect(full.length).toBeLessThanOrEqual(refusedCount);
    expect(full.every((a) => Number(a.retryAfter) > 0)).toBe(true);
    await eventually(
      () => t.app.largeBodyTurns.counts.holding === 0 && t.app.largeBodyTurns.counts.waiting === 0,
      WAIT_MS,
      'every turn back',
    );
  });

  it('a page form declaring a large body is refused 413 before it waits for a turn, even when every turn is held', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`page-${i}`)));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, WAIT_MS, 'turns taken');
    for (const path of ['/dashboard/sign-in', '/connect/platform_a', '/track/00000000-0000-4000-8000-000000000000']) {
      const page = stalled(baseUrl, path, null, LARGE_BODY_BYTES + 1, 'application/x-www-form-urlencoded');
      const answer = await page.answered;
      expect(answer === 'aborted' ? answer : answer.status).toBe(413);
      page.abort();
    }
    expect(t.app.largeBodyTurns.counts.waiting).toBe(0);
    for (const id of [...inside.keys()]) release(id);
    expect(await Promise.all(holders.map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE).fill(200));
    expect(LARGE_BODY_TURNS_PER_OWNER).toBeLessThan(LARGE_BODIES_AT_ONCE);
  });
});

describe('a stalled request times out', () => {
  it('a body that never comes is answered (400, “did not arrive in time”) and its connection closed once the request timeout passes; its turn comes back', async () => {
    const short = await buildPlumbingApp({ timeouts: { requestMs: 2_000, headersMs: 1_000 } });
    try {
      const store = await createTestStore(short.orm, { plan: 'paid' });
      await short.app.listen({ port: 0, host: '127.0.0.1' });
      const base = `http://127.0.0.1:${(short.app.server.address() as { port: number }).port}`;
      const stuck = stalled(base, '/api/v1/orders', store.secret);
      await eventually(() => short.app.largeBodyTurns.counts.holding + short.app.largeBodyTurns.counts.waiting > 0, WAIT_MS, 'in line');
      const answer = await Promise.race([stuck.answered, new Promise<'no answer'>((r) => setTimeout(() => r('no answer'), WAIT_MS))]);
      // Node's request timeout reaches our handler of unreadable requests: the envelope, 400, then the close.
      expect(typeof answer === 'object' ? answer.status : answer).toBe(400);
      await eventually(() => short.app.largeBodyTurns.counts.holding === 0, WAIT_MS, 'turn back');
    } finally {
      await short.close();
    }
  });
});
