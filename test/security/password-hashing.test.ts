// Password hashing is the costliest thing an anonymous client can make us do (scrypt: ~0.5 s of CPU and
// 128 MiB each). Every sign-up attempt is counted, a taken email costs no hash, hashing is bounded per
// process with a short queue (503 + Retry-After beyond it), and every page POST is metered per client
// (issue 23, item 1).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../domain/password.js';
import { ANONYMOUS_PER_IP } from '../../domain/rate-limits.js';
import { THROTTLE } from '../../services/accounts/throttle.js';
import { PASSWORD_HASHING, passwordHashing } from '../../services/accounts/hashing.js';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { startInOneRateWindow, RATE_WINDOW_WAIT_MS } from '../helpers/rate-window.js';
import { csrfOf, newEmail, PageClient, PASSWORD } from '../dashboard/client.js';

let t: TestApp;
beforeAll(async () => (t = await createTestApp()));
afterAll(() => t.close());
afterEach(() => {
  passwordHashing.atOnce = PASSWORD_HASHING.atOnce;
  passwordHashing.waiting = PASSWORD_HASHING.waiting;
});

const statuses = (responses: { statusCode: number }[]) =>
  responses.reduce<Record<number, number>>((m, r) => ({ ...m, [r.statusCode]: (m[r.statusCode] ?? 0) + 1 }), {});

/** `count` sign-ups with this email at the same moment, from one client (one form token). */
async function burst(c: PageClient, email: string, count: number) {
  const csrf = csrfOf((await c.get('/dashboard/sign-up')).body)!;
  return Promise.all(Array.from({ length: count }, () => c.post('/dashboard/sign-up', { email, password: PASSWORD, _csrf: csrf })));
}

describe('sign-ups with an email that has an account', () => {
  it(
    'two bursts of 20 from one client hash nothing, answer as today, and all count: cut at the sign-up limit (429)',
    { timeout: 120_000 },
    async () => {
      const email = await new PageClient(t).signUp();
      await startInOneRateWindow(t.orm, 30_000);
      const c = new PageClient(t);
      const before = passwordHashing.started;
      const first = await burst(c, email, 20);
      const second = await burst(c, email, 20);
      expect(passwordHashing.started - before).toBeLessThanOrEqual(PASSWORD_HASHING.atOnce);
      expect(statuses(first)).toEqual({ 400: 20 });
      expect(statuses(second)).toEqual({ 400: THROTTLE.signUpsPerIp - 20, 429: 40 - THROTTLE.signUpsPerIp });
      expect(first[0]!.body).toContain('already exists');
      expect(Number(second.find((r) => r.statusCode === 429)!.headers['retry-after'])).toBeGreaterThan(0);
    },
  );
});

describe('the process-wide hashing gate', () => {
  it('beyond the hashes running and the short queue, a sign-up is refused at once: 503 with Retry-After, its attempt given back', async () => {
    passwordHashing.atOnce = 1;
    passwordHashing.waiting = 1;
    const clients = Array.from({ length: 6 }, () => new PageClient(t));
    const forms = await Promise.all(clients.map(async (c) => csrfOf((await c.get('/dashboard/sign-up')).body)!));
    const before = passwordHashing.started;
    const answers = await Promise.all(
      clients.map((c, i) => c.post('/dashboard/sign-up', { email: newEmail('gate'), password: PASSWORD, _csrf: forms[i]! })),
    );
    const counts = statuses(answers);
    expect(counts[503]).toBeGreaterThanOrEqual(1);
    expect((counts[303] ?? 0) + counts[503]!).toBe(6);
    expect(passwordHashing.started - before).toBe(counts[303]);
    const refused = answers.find((r) => r.statusCode === 503)!;
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const [row] = await t.orm.em
      .fork()
      .execute<{ failures: number }[]>(`select failures from sign_in_throttle where bucket = ?`, [
        `signup-ip:${clients[answers.indexOf(refused)]!.ip}`,
      ]);
    expect(row?.failures ?? 0).toBe(0);
  });

  it('a sign-in completes within a few hashes’ time while 80 taken-email sign-ups flood in', { timeout: 180_000 }, async () => {
    // The machine's own pace: one hash, now, under whatever load it carries.
    const started = performance.now();
    await hashPassword(PASSWORD);
    const oneHash = performance.now() - started;
    const email = await new PageClient(t).signUp();
    const owner = new PageClient(t);
    const csrf = csrfOf((await owner.get('/dashboard/sign-in')).body)!;
    const flood = Promise.all([burst(new PageClient(t), email, 40), burst(new PageClient(t), email, 40)]);
    const signInStarted = performance.now();
    const signIn = await owner.post('/dashboard/sign-in', { email, password: PASSWORD, _csrf: csrf });
    const took = performance.now() - signInStarted;
    await flood;
    expect(signIn.statusCode).toBe(303);
    expect(took).toBeLessThan(Math.max(8 * oneHash, 2_000));
  });
});

describe('every page POST is metered per client like the API’s keyless requests', () => {
  for (const [what, path] of [
    ['a dashboard form', '/dashboard/sign-out'],
    ['the hosted cart’s form', '/s/no-such-store/cart/no-such-token'],
    ['the connect page’s form', '/connect/platform_a'],
  ] as const) {
    it(`${what}: past ${ANONYMOUS_PER_IP} a minute, 429 with Retry-After`, { timeout: RATE_WINDOW_WAIT_MS + 60_000 }, async () => {
      await startInOneRateWindow(t.orm, 30_000);
      const c = new PageClient(t);
      const answers = [];
      for (let i = 0; i <= ANONYMOUS_PER_IP; i++) answers.push(await c.post(path, {}));
      expect(answers.slice(0, ANONYMOUS_PER_IP).every((r) => r.statusCode !== 429)).toBe(true);
      const last = answers.at(-1)!;
      expect(last.statusCode).toBe(429);
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      expect(last.headers['content-type']).toContain('text/html');
    });
  }
});
