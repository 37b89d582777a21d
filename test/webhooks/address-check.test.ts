// Every outbound target form, checked directly: no real DNS (a fake resolver answers) and no packet
// to anything but loopback (DEVELOPERS: network traffic in tests goes to loopback only).
import { describe, expect, it } from 'vitest';
import { checkAddress, type TargetPolicy } from '../../domain/address-check.js';
import { postOnce } from '../../services/outbound/send.js';
import { checkTarget, type Resolver } from '../../services/outbound/target.js';
import { startReceiver } from '../helpers/receiver.js';
import { LOOPBACK_FORMS, REFUSED_BEFORE_DNS, REFUSED_BY_ADDRESS, resolver } from './targets.js';

const production: TargetPolicy = { allowLoopback: false };
const development: TargetPolicy = { allowLoopback: true };

describe('the URL shape is refused before any lookup', () => {
  it.each(REFUSED_BEFORE_DNS)('%s is refused (%s)', async (url, reason) => {
    let lookups = 0;
    const counting: Resolver = async (host) => (lookups++, resolver(host));
    for (const policy of [production, development]) {
      const checked = await checkTarget(url, policy, counting);
      expect(checked.ok).toBe(false);
      if (!checked.ok) expect(checked.reason).toMatch(reason);
    }
    expect(lookups).toBe(0);
  });
});

describe('a public target uses https port 443 unless the operator allows another', () => {
  it.each(['https://hooks.public.example:8443/h', 'https://hooks.public.example:22/h', 'https://hooks.public.example:5432/h'])(
    '%s is refused by default, before any lookup, naming the port',
    async (url) => {
      const noDns: Resolver = async () => expect.unreachable('no lookup for a refused port');
      const checked = await checkTarget(url, production, noDns);
      expect(checked).toEqual({ ok: false, reason: expect.stringContaining('port 443') });
    },
  );

  it('443 written out or left implicit passes; an extra port passes only when the policy lists it', async () => {
    for (const url of ['https://hooks.public.example/h', 'https://hooks.public.example:443/h'])
      expect((await checkTarget(url, production, resolver)).ok).toBe(true);
    const withExtra: TargetPolicy = { allowLoopback: false, extraPorts: [8443] };
    expect((await checkTarget('https://hooks.public.example:8443/h', withExtra, resolver)).ok).toBe(true);
    expect((await checkTarget('https://hooks.public.example:8444/h', withExtra, resolver)).ok).toBe(false);
  });
});

describe('loopback in any spelling is refused in production, before any lookup', () => {
  it.each(LOOPBACK_FORMS)('%s is refused (%s)', async (url, reason) => {
    const noDns: Resolver = async () => expect.unreachable('no lookup');
    const checked = await checkTarget(url, production, noDns);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });
});

describe('a name is refused when any address it resolves to is not public', () => {
  it.each(REFUSED_BY_ADDRESS)('https://%s/ is refused', async (name) => {
    for (const policy of [production, development]) {
      const checked = await checkTarget(`https://${name}/hook`, policy, resolver);
      expect(checked.ok).toBe(false);
      // The same words as for a name that does not resolve, and never the address it resolved to.
      if (!checked.ok) expect(checked.reason).toBe(`the host ${name} does not resolve to a public address`);
    }
  });

  it('a name that does not resolve, or resolves to nothing, is refused', async () => {
    for (const name of ['nowhere.example', 'empty.example']) {
      const checked = await checkTarget(`https://${name}/hook`, production, resolver);
      expect(checked).toEqual({ ok: false, reason: `the host ${name} does not resolve to a public address` });
    }
  });
});

describe('public https names pass, pinned to the address that was checked', () => {
  it.each([
    ['https://hooks.public.example/h', '93.184.215.14', 4],
    ['https://HOOKS.Public.Example:443/a/b?c=1', '93.184.215.14', 4],
    ['https://v6.public.example/h', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', 6],
    ['https://mapped-public.example/h', '::ffff:93.184.215.14', 6],
  ] as const)('%s → %s', async (url, address, family) => {
    for (const policy of [production, development]) {
      expect(await checkTarget(url, policy, resolver)).toMatchObject({ ok: true, address, family });
    }
  });
});

describe('checkAddress: only globally routable unicast', () => {
  it.each([
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '239.255.255.255',
    '240.0.0.1',
    '255.255.255.255',
    '198.18.0.1',
    '198.19.255.255',
    '192.0.0.1',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '::1',
    '::',
    'fe80::1',
    'febf:ffff::1',
    'fc00::1',
    'fdff::1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
    '64:ff9b::808:808',
    '2002:a00:1::1',
    '2001::1',
    '2001:0:4136:e378::1',
    '2001:db8::1',
    'ff02::1',
    'ff0e::1',
    '::a00:1',
    'fec0::1',
    '100::1',
    '4000::1',
    'not-an-address',
    '',
  ])('%s is refused', (address) => {
    expect(checkAddress(address)).toEqual(expect.any(String));
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:93.184.215.14'])(
    '%s is allowed',
    (address) => {
      expect(checkAddress(address)).toBeNull();
    },
  );
});

describe('ALLOW_LOOPBACK_TARGETS admits http(s)://127.0.0.1 and localhost, and nothing more', () => {
  it.each([
    'http://127.0.0.1:4000/h',
    'https://127.0.0.1:4000/h',
    'http://localhost:4000/h',
    'https://localhost:4000/h',
    'http://127.0.0.1/h',
    'http://2130706433:4000/h',
    'http://127.1:4000/h',
    ...LOOPBACK_FORMS.map(([url]) => url),
  ])('%s is allowed with it, pinned to 127.0.0.1, without a lookup', async (url) => {
    const noDns: Resolver = async () => expect.unreachable('no lookup for the loopback names');
    expect(await checkTarget(url, development, noDns)).toMatchObject({ ok: true, address: '127.0.0.1', family: 4 });
    expect((await checkTarget(url, production, resolver)).ok).toBe(false);
  });

  it('the URL is normalised first: http://2130706433:4000/ is http://127.0.0.1:4000/', async () => {
    const checked = await checkTarget('http://2130706433:4000/h', development, resolver);
    expect(checked.ok && checked.url.toString()).toBe('http://127.0.0.1:4000/h');
  });

  it.each([
    'http://127.0.0.2:4000/h',
    'https://127.0.0.2:4000/h',
    'http://[::1]:4000/h',
    'http://[::ffff:127.0.0.1]:4000/h',
    'http://0.0.0.0:4000/h',
    'http://localhost.:4000/h',
    'http://api.localhost:4000/h',
    'http://user:pw@127.0.0.1:4000/h',
    'http://user:pw@localhost:4000/h',
    'ftp://127.0.0.1:4000/h',
    'ws://localhost:4000/h',
    'http://10.0.0.1:4000/h',
    'http://hooks.public.example/h',
    'https://loopback.example/h',
    'https://loopback2.example/h',
    'https://mapped-loopback.example/h',
    'https://v6-loopback.example/h',
  ])('%s stays refused with it', async (url) => {
    expect((await checkTarget(url, development, resolver)).ok).toBe(false);
  });
});

describe('what a receiver says is kept bounded', () => {
  it("a redirect's 16 KB Location is cut to a short excerpt in the recorded error", async () => {
    const far = `http://127.0.0.1:9/${'x'.repeat(16_000)}`;
    const receiver = await startReceiver((_r, res) => void res.writeHead(302, { location: far }).end());
    try {
      const result = await postOnce({ body: '{}', headers: {}, timeoutMs: 5000, url: receiver.url(), policy: development });
      expect(result).toMatchObject({ ok: false, status: 302 });
      expect(result.error!.length).toBeLessThan(300);
      expect(result.error).toMatch(/^redirect to http:\/\/127\.0\.0\.1:9\/x+… not followed$/);
    } finally {
      await receiver.close();
    }
  });
});

describe('postOnce checks the target before it connects', () => {
  const request = { body: '{}', headers: { 'content-type': 'application/json' }, timeoutMs: 1000 };

  it('refuses a name resolving to a private address, without a connection (the check returns first)', async () => {
    const lookups: string[] = [];
    const resolvePrivate: Resolver = async (host) => (lookups.push(host), ['10.0.0.7']);
    for (const policy of [production, development]) {
      const result = await postOnce({ ...request, url: 'https://hooks.private.example/h', policy, resolve: resolvePrivate });
      expect(result).toMatchObject({ ok: false, status: null });
      expect(result.error).toBe('refused: the host hooks.private.example does not resolve to a public address');
    }
    expect(lookups).toEqual(['hooks.private.example', 'hooks.private.example']);
  });

  it('refuses an IP literal and plain http without even a lookup', async () => {
    const noDns: Resolver = async () => expect.unreachable('no lookup');
    for (const url of ['https://10.0.0.7/h', 'http://hooks.public.example/h', 'https://[fd00::1]/h']) {
      const result = await postOnce({ ...request, url, policy: production, resolve: noDns });
      expect(result.error).toMatch(/^refused: /);
    }
  });

  it('a host name that does not resolve in time fails within the timeout', async () => {
    const never: Resolver = () => new Promise(() => undefined);
    const started = Date.now();
    const result = await postOnce({ ...request, timeoutMs: 300, url: 'https://slow-dns.example/h', policy: production, resolve: never });
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/within 300 ms/);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('sends to localhost on the pinned loopback address, never asking DNS', async () => {
    const receiver = await startReceiver();
    const noDns: Resolver = async () => expect.unreachable('no lookup');
    const result = await postOnce({
      ...request,
      url: receiver.url().replace('127.0.0.1', 'localhost'),
      policy: development,
      resolve: noDns,
    });
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(receiver.received).toHaveLength(1);
    await receiver.close();
  });
});
