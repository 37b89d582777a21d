import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { RULES, runConformance, startServiceStandIn, type RuleResult } from '@store-commerce/plugin-kit/conformance';
import { ADMIN_COOKIE, ReferencePlugin } from '../../examples/plugin/plugin.js';
import { InMemoryShop } from '../../examples/plugin/shop.js';
import { startBrokenPlugin, type Mistakes } from './broken-plugin.js';

const SECRET = 'whsec_conformance_test_secret';
// The command from its sources through tsx (the repository's tsconfig maps the SDK to its sources too);
// test/plugin-kit/packaging.test.ts runs the built one from the installed tarball.
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = ['--import', 'tsx', `${ROOT}plugin-kit/src/conformance/bin.ts`];
const NOT_CHECKABLE = ['push.constant-time', 'pull.every-15-minutes', 'heartbeat', 'no-echo'];
const CONNECT_RULES = [
  'connect.url',
  'connect.state-random',
  'connect.unknown-state-refused',
  'connect.missing-state-refused',
  'connect.start-authenticated',
  'connect.state-bound-to-session',
  'connect.no-silent-replace',
  'connect.state-single-use',
];
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** The reference plugin on loopback, configured with the test secret and holding the order the checks update. */
async function referencePlugin(serviceUrl = 'http://127.0.0.1:9') {
  const shop = new InMemoryShop();
  shop.addOrder({
    externalId: 'conformance-order',
    number: '#1',
    status: 'processing',
    tracking: { number: null, courier: null, url: null },
    trackingPageUrl: null,
    notes: [],
  });
  // No service behind it: the checks act as the service (by default an exchange would go to a closed loopback port).
  const plugin = new ReferencePlugin({ serviceUrl, platform: 'platform_a', siteUrl: 'https://shop.example', shop });
  plugin.useCredentials('svc_unused_key', SECRET);
  const pushUrl = await plugin.listen();
  cleanups.push(() => plugin.stop());
  // The check signs in as the shop's admin: the connect pages are an admin's (the state is bound to that session).
  const auth = { cookie: `${ADMIN_COOKIE}=${plugin.openAdminSession()}` };
  return { shop, plugin, pushUrl, returnUrl: plugin.returnUrl(), connectUrl: plugin.startUrl(), auth };
}

async function broken(mistakes: Mistakes, serviceUrl?: string) {
  const b = await startBrokenPlugin(SECRET, mistakes, serviceUrl);
  cleanups.push(b.close);
  return b;
}

/** A loopback port free a moment ago (for the command's stand-in, which the plugin must know before it starts). */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const failing = (results: RuleResult[]) => results.filter((r) => r.outcome === 'fail').map((r) => r.rule);
const byOutcome = (results: RuleResult[], outcome: RuleResult['outcome']) =>
  results.filter((r) => r.outcome === outcome).map((r) => r.rule);

describe('the reference plugin passes the conformance check', () => {
  it('every checkable rule passes, each refused push changed nothing, each update was applied once, only the admin’s own returns exchanged', async () => {
    const standIn = await startServiceStandIn();
    cleanups.push(standIn.close);
    const { shop, pushUrl, returnUrl, connectUrl, auth } = await referencePlugin(standIn.url);
    const results = await runConformance({
      pushUrl,
      secret: SECRET,
      returnUrl,
      connectUrl,
      standIn,
      auth,
      externalId: 'conformance-order',
    });
    expect(results.map((r) => r.rule)).toEqual(RULES.map((r) => r.rule));
    expect(failing(results), JSON.stringify(results, null, 2)).toEqual([]);
    expect(byOutcome(results, 'not checkable')).toEqual(NOT_CHECKABLE);
    // valid, duplicate (once), the good half of the batch, the 4-minute-old push, and the push signed with the
    // earlier secret after a connect to another store (which waits for the admin's confirmation): five updates.
    expect(shop.applyCount).toBe(5);
    expect(shop.orders.get('conformance-order')!.notes).toEqual([
      'conformance: valid push',
      'conformance: duplicate push',
      'conformance: batch, applies',
      'conformance: 4 minutes old',
      'conformance: after a connect to another store',
    ]);
    // Only the returns with the plugin's own state in the admin's session reached the exchange (the accepted one to
    // another store, and the first use of a state); the forged ones, the sessionless one and the reused state did not.
    expect(standIn.exchanges).toHaveLength(2);
  });

  it('without --return-url, --connect-url or --service-port the connect rules are reported not checkable, not passed', async () => {
    const { pushUrl, returnUrl } = await referencePlugin();
    const pushOnly = await runConformance({ pushUrl, secret: SECRET, externalId: 'conformance-order' });
    expect(failing(pushOnly)).toEqual([]);
    expect(byOutcome(pushOnly, 'not checkable')).toEqual(expect.arrayContaining(CONNECT_RULES));
    const withReturn = await runConformance({ pushUrl, secret: SECRET, returnUrl, externalId: 'conformance-order' });
    expect(failing(withReturn)).toEqual([]);
    expect(withReturn.find((r) => r.rule === 'connect.state-single-use')).toMatchObject({
      outcome: 'not checkable',
      reason: 'needs --connect-url and --service-port',
    });
  });

  it('a plugin holding another secret fails the rules that need an accepted push, and only those', async () => {
    const { pushUrl, returnUrl } = await referencePlugin();
    const results = await runConformance({ pushUrl, secret: 'whsec_not_the_one', returnUrl, externalId: 'conformance-order' });
    expect(failing(results)).toEqual(['push.valid', 'push.duplicate', 'push.failed-reported', 'push.window-inside']);
    expect(results.find((r) => r.rule === 'push.valid')!.reason).toMatch(/answered 401/);
  });
});

describe('a broken plugin fails exactly the rules it breaks', () => {
  it('no timestamp window, repeats reported failed, no state check, unguarded JSON', async () => {
    const b = await broken({ noTimestampWindow: true, repeatsFail: true, noStateCheck: true, trustsJson: true });
    const results = await runConformance({ pushUrl: b.pushUrl, secret: SECRET, returnUrl: b.returnUrl, externalId: 'conformance-order' });
    expect(failing(results)).toEqual([
      'push.duplicate',
      'push.stale-refused',
      'push.future-refused',
      'push.malformed-refused',
      'connect.unknown-state-refused',
      'connect.missing-state-refused',
    ]);
    const reason = (rule: string) => results.find((r) => r.rule === rule)!.reason;
    expect(reason('push.duplicate')).toMatch(/reported failed \(already applied\): the service pushes again/);
    expect(reason('push.stale-refused')).toMatch(/answered 200: accepted instead of refused/);
    expect(reason('connect.unknown-state-refused')).toMatch(/answered 502: .*went on to exchange the code/);
  });

  it('a reply that is not {applied, failed}, and a signature checked only when present', async () => {
    const b = await broken({ wrongReply: true, signatureOptional: true });
    const results = await runConformance({ pushUrl: b.pushUrl, secret: SECRET, returnUrl: b.returnUrl, externalId: 'conformance-order' });
    expect(failing(results)).toEqual([
      'push.valid',
      'push.duplicate',
      'push.failed-reported',
      'push.window-inside',
      'push.unsigned-refused',
    ]);
    expect(results.find((r) => r.rule === 'push.valid')!.reason).toMatch(/not \{applied: \[ids\], failed: \[\{id, error\}\]\}/);
  });

  it('a reply without its failed list fails the rules that read the reply', async () => {
    const b = await broken({ omitsFailed: true });
    const results = await runConformance({ pushUrl: b.pushUrl, secret: SECRET, returnUrl: b.returnUrl, externalId: 'conformance-order' });
    expect(failing(results)).toEqual(['push.valid', 'push.duplicate', 'push.failed-reported', 'push.window-inside']);
  });

  it('one fixed state for every connect start, accepted again and again', async () => {
    const standIn = await startServiceStandIn();
    cleanups.push(standIn.close);
    const b = await broken({}, standIn.url);
    const results = await runConformance({ ...b, secret: SECRET, standIn, externalId: 'conformance-order' });
    expect(failing(results)).toEqual(['connect.state-random', 'connect.state-single-use']);
    expect(results.find((r) => r.rule === 'connect.state-random')!.reason).toMatch(/two starts carried the same state/);
    expect(results.find((r) => r.rule === 'connect.state-single-use')!.reason).toMatch(/answered 502/);
  });

  it('connect pages open to anyone, a state not bound to a session, credentials replaced without asking', async () => {
    const standIn = await startServiceStandIn();
    cleanups.push(standIn.close);
    const b = await broken({ replacesSilently: true }, standIn.url);
    // A session cookie the broken plugin never looks at.
    const results = await runConformance({
      ...b,
      secret: SECRET,
      standIn,
      auth: { cookie: 'shop_admin=ignored' },
      externalId: 'conformance-order',
    });
    expect(failing(results)).toEqual([
      'connect.state-random',
      'connect.start-authenticated',
      'connect.state-bound-to-session',
      'connect.no-silent-replace',
      'connect.state-single-use',
    ]);
    const reason = (rule: string) => results.find((r) => r.rule === rule)!.reason;
    expect(reason('connect.start-authenticated')).toMatch(/anyone can start connecting/);
    expect(reason('connect.no-silent-replace')).toMatch(/were the credentials replaced/);
  });

  it('a state checked only after the exchange: refused with a 4xx, which only the service stand-in can tell apart', async () => {
    const standIn = await startServiceStandIn();
    cleanups.push(standIn.close);
    const b = await broken({ stateCheckedLate: true }, standIn.url);
    const opts = { pushUrl: b.pushUrl, secret: SECRET, returnUrl: b.returnUrl, externalId: 'conformance-order' };
    expect(failing(await runConformance(opts))).toEqual([]);
    const watched = await runConformance({ ...opts, standIn });
    expect(failing(watched)).toEqual(['connect.unknown-state-refused', 'connect.missing-state-refused']);
    expect(watched.find((r) => r.rule === 'connect.unknown-state-refused')!.reason).toMatch(/only after POST \/connect\/exchange/);
    expect(standIn.exchanges).toHaveLength(4);
  });
});

describe('the store-commerce-conformance command', () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, [...BIN, ...args], { timeout: 60_000, cwd: ROOT }).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
    );

  it('--json prints one JSON document and exits 0 for the reference plugin, watched by the --service-port stand-in', async () => {
    const port = await freePort();
    const { pushUrl, returnUrl, connectUrl, auth } = await referencePlugin(`http://127.0.0.1:${port}`);
    const args = [
      '--push-url',
      pushUrl,
      '--secret',
      SECRET,
      '--return-url',
      returnUrl,
      '--connect-url',
      connectUrl,
      '--cookie',
      auth.cookie,
    ];
    const { code, stdout } = await run([...args, '--service-port', String(port), '--json']);
    expect(code, stdout).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc).toMatchObject({
      push_url: pushUrl,
      return_url: returnUrl,
      connect_url: connectUrl,
      service_stand_in: `http://127.0.0.1:${port}`,
      failed: 0,
      not_checkable: NOT_CHECKABLE.length,
    });
    expect(doc.passed).toBe(RULES.length - NOT_CHECKABLE.length);
  });

  it('prints one line per rule and exits 1 when a rule fails; 2 on bad usage', async () => {
    const b = await broken({ noTimestampWindow: true });
    const { code, stdout } = await run(['--push-url', b.pushUrl, '--secret', SECRET]);
    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL {2}push\.stale-refused/m);
    expect(stdout).toMatch(/^PASS {2}push\.valid/m);
    expect(stdout).toMatch(/^N\/C {3}push\.constant-time/m);
    expect(stdout.trim().split('\n').at(-1)).toMatch(/^\d+ passed, 2 failed, \d+ not checkable remotely$/);
    expect((await run(['--secret', SECRET])).code).toBe(2);
    expect((await run(['--push-url', 'ftp://x', '--secret', SECRET])).code).toBe(2);
    expect((await run(['--push-url', b.pushUrl, '--secret', SECRET, '--header', 'no colon'])).code).toBe(2);
  });
});
