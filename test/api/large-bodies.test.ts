// Large JSON bodies take turns: at most LARGE_BODIES_AT_ONCE are parsed and handled at once, so the
// memory they take stays bounded however many connections send them; the others wait and are answered.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../api/access.js';
import { LARGE_BODIES_AT_ONCE, LARGE_BODY_BYTES, SLOW_BODY_MS, Turns } from '../../api/plugins/raw-json-body.js';
import { bearer } from '../helpers/app.js';
import { eventually } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { buildPlumbingApp, type PlumbingApp } from './plumbing-app.js';

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
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE && t.app.largeBodyTurns.counts.waiting === 2, 10_000, 'turns taken');
    expect(t.app.largeBodyTurns.counts).toEqual({ holding: LARGE_BODIES_AT_ONCE, waiting: 2 });

    // A small body never waits for a turn.
    const small = hold(JSON.stringify({ id: 'small' }));
    await eventually(() => inside.has('small'), 10_000, 'the small body handled');
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
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, 10_000, 'turns taken');
    // Only the headers and 10 bytes are sent: it is in the queue all the same, so nothing of it was buffered to decide.
    const early = holdOverHttp(largeBody('early-waiting'), { sent: 10 });
    // A client that gives up while its unread body waits is only noticed when its turn comes: the read fails, nothing is handled.
    const quitter = holdOverHttp(largeBody('early-quitter'), { sent: 10 });
    const last = holdOverHttp(largeBody('early-last'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 3, 10_000, 'queued before their bodies came');
    quitter.abort();
    early.finish();
    last.finish();
    release('early-0');
    await eventually(() => inside.has('early-waiting'), 10_000, 'let in once a turn is free');
    release('early-1');
    await eventually(() => inside.has('early-last'), 10_000, 'the quitter passed over, the next one let in');
    expect(inside.has('early-quitter')).toBe(false);
    for (const id of [...inside.keys()]) release(id);
    expect(await quitter.answered).toBe('aborted');
    expect(await Promise.all([...holders, early, last].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE + 2).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, 10_000, 'every turn back');
  });

  it(`a client slow to send its declared large body gives its turn back after ${SLOW_BODY_MS} ms, and is handled once its body is in`, async () => {
    const slow = holdOverHttp(largeBody('slow'), { sent: 10 });
    await eventually(() => t.app.largeBodyTurns.counts.holding === 1, 10_000, 'turn given before the body');
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, SLOW_BODY_MS + 5_000, 'turn given back');
    slow.finish();
    await eventually(() => inside.has('slow'), 10_000, 'handled once received');
    expect(t.app.largeBodyTurns.counts.holding).toBe(1);
    release('slow');
    expect(await slow.answered).toBe(200);
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, 10_000, 'every turn back');
  });

  it('a large chunked body (no Content-Length) takes its turn once received', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`chunked-${i}`), { chunked: true }));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, 10_000, 'turns taken');
    const late = holdOverHttp(largeBody('chunked-waiting'), { chunked: true });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 1, 10_000, 'waiting, received but unparsed');
    expect(inside.has('chunked-waiting')).toBe(false);
    for (const id of [...inside.keys()]) release(id);
    await eventually(() => inside.has('chunked-waiting'), 10_000, 'let in');
    release('chunked-waiting');
    expect(await Promise.all([...holders, late].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE + 1).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, 10_000, 'every turn back');
  });

  it('a client that goes away gives its turn back, whether it was being handled or still waiting', async () => {
    const holders = Array.from({ length: LARGE_BODIES_AT_ONCE }, (_, i) => holdOverHttp(largeBody(`gone-${i}`)));
    await eventually(() => inside.size === LARGE_BODIES_AT_ONCE, 10_000, 'turns taken');
    // Chunked: received while waiting, so the server sees at once that the client went away.
    const waiting = holdOverHttp(largeBody('gone-waiting'), { chunked: true });
    const next = holdOverHttp(largeBody('gone-next'), { chunked: true });
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 2, 10_000, 'two waiting');

    // Gone while waiting: its place is given up, nothing of it is handled.
    waiting.abort();
    await eventually(() => t.app.largeBodyTurns.counts.waiting === 1, 10_000, 'the place given up');
    // Gone while handled (its handler still running): the turn comes back at once and the next one is let in.
    holders[0]!.abort();
    await eventually(() => inside.has('gone-next'), 10_000, 'the next one let in');
    expect(inside.has('gone-waiting')).toBe(false);

    for (const id of [...inside.keys()]) release(id);
    expect(await waiting.answered).toBe('aborted');
    expect(await holders[0]!.answered).toBe('aborted');
    expect(await Promise.all([...holders.slice(1), next].map((h) => h.answered))).toEqual(Array(LARGE_BODIES_AT_ONCE).fill(200));
    await eventually(() => t.app.largeBodyTurns.counts.holding === 0, 10_000, 'every turn back');
    expect(t.app.largeBodyTurns.counts).toEqual({ holding: 0, waiting: 0 });
  });
});
