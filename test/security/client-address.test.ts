// Whom per-IP limits count (issue 16, security review): TRUST_PROXY trusts a number of hops or named
// proxies, never every hop, and an IPv6 client counts per /64.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, createTestApp, type TestApp } from '../helpers/app.js';
import { createTestStore } from '../helpers/store.js';
import { ConfigError, loadConfig } from '../../config/env.js';

let oneHop: TestApp;
let named: TestApp;
beforeAll(async () => {
  oneHop = await createTestApp({ TRUST_PROXY: '1' });
  named = await createTestApp({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' });
});
afterAll(async () => {
  await oneHop.close();
  await named.close();
});

// Counters run per calendar minute: start each test with enough of the minute left that it ends inside it.
beforeEach(async () => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((r) => setTimeout(r, left + 250));
}, 20_000);

let n = 0;
const unique = () => `${process.pid % 200}.${++n}`;
/** A keyless request, which counts against the client address. */
const keyless = (t: TestApp, remoteAddress: string, forwarded?: string) =>
  t.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} });
async function counted(t: TestApp, bucket: string): Promise<number> {
  const rows = await t.orm.em
    .fork()
    .execute<{ count: number }[]>(`select sum(count)::int as count from rate_limit_counters where bucket = ?`, [bucket]);
  return rows[0]?.count ?? 0;
}

describe('TRUST_PROXY', () => {
  it('with 1 hop, a forged extra X-Forwarded-For entry does not change the counted IP', async () => {
    const client = `203.0.${unique()}`;
    for (const forged of ['198.51.100.1', '198.51.100.2', '198.51.100.3']) {
      expect((await keyless(oneHop, '127.0.0.1', `${forged}, ${client}`)).statusCode).toBe(401);
    }
    expect(await counted(oneHop, `ip:${client}`)).toBe(3);
    expect(await counted(oneHop, 'ip:198.51.100.1')).toBe(0);
  });

  it('with proxy addresses, only those hops are trusted: an untrusted hop is the client whatever it forwards', async () => {
    const client = `203.1.${unique()}`;
    // 127.0.0.1 and 10.1.2.3 are trusted proxies: the client is the entry before them.
    expect((await keyless(named, '127.0.0.1', `198.51.100.9, ${client}, 10.1.2.3`)).statusCode).toBe(401);
    expect(await counted(named, `ip:${client}`)).toBe(1);
    // A direct client that is not a named proxy is counted as itself, whatever it claims.
    const direct = `127.${unique()}`;
    expect((await keyless(named, direct, '198.51.100.10')).statusCode).toBe(401);
    expect(await counted(named, `ip:${direct}`)).toBe(1);
    expect(await counted(named, 'ip:198.51.100.10')).toBe(0);
  });

  it('refuses true with a config error that says what to write; parses false, 0, a number and CIDRs', () => {
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ TRUST_PROXY: 'true' })).toThrow(/TRUST_PROXY.*every X-Forwarded-For hop.*TRUST_PROXY=1/s);
    expect(() => loadConfig({ TRUST_PROXY: '10.0.0.0/33' })).toThrow(/TRUST_PROXY/);
    expect(() => loadConfig({ TRUST_PROXY: 'yes' })).toThrow(/TRUST_PROXY/);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, fd00::/8,loopback' }).trustProxy).toEqual(['10.0.0.0/8', 'fd00::/8', 'loopback']);
  });
});

describe('an IPv6 client counts per /64', () => {
  it('two addresses in one /64 share the keyless counter; another /64 does not', async () => {
    const prefix = `2001:db8:${(process.pid % 0xfff).toString(16)}:${(++n).toString(16)}`;
    expect((await keyless(oneHop, `${prefix}::a`)).statusCode).toBe(401);
    const second = await keyless(oneHop, `${prefix}:ffff:1:2:3`);
    expect(second.headers['x-ratelimit-remaining']).toBe('58');
    expect(await counted(oneHop, `ip:${prefix}::/64`)).toBe(2);
    const other = await keyless(oneHop, `2001:db8:ffff:${(++n).toString(16)}::a`);
    expect(other.headers['x-ratelimit-remaining']).toBe('59');
  });

  it('two addresses in one /64 share a publishable key visitor counter', async () => {
    const s = await createTestStore(oneHop.orm);
    const prefix = `2001:db8:${(process.pid % 0xfff).toString(16)}:${(++n).toString(16)}`;
    const me = (ip: string) => oneHop.app.inject({ method: 'GET', url: '/api/v1/me', remoteAddress: ip, headers: bearer(s.publishable) });
    expect((await me(`${prefix}::1`)).headers['x-ratelimit-remaining']).toBe('29');
    expect((await me(`${prefix}::2`)).headers['x-ratelimit-remaining']).toBe('28');
  });
});
