import { Resolver as DnsResolver } from 'node:dns/promises';
import { checkAddress, checkTargetUrl, type TargetPolicy } from '../../domain/address-check.js';

/** Resolves a host name to all its addresses (replaceable in tests, which must not query real DNS). */
export type Resolver = (host: string) => Promise<string[]>;

/** No name takes longer than this to resolve, at registration or at send time (a send also has its own WEBHOOK_TIMEOUT_MS). */
export const RESOLVE_DEADLINE_MS = 5000;

/**
 * DNS through c-ares, with a per-query timeout and retries, never through dns.lookup: lookup runs on
 * libuv's 4-thread pool, where a few slow names would hold up every other lookup and file operation of
 * the process (other stores' deliveries included). A and AAAA are asked in parallel, since the check
 * must see every address a name has. `servers` (host:port) is for tests with a loopback DNS server.
 */
export function createSystemResolver(opts: { servers?: string[]; timeoutMs?: number; tries?: number } = {}): Resolver {
  const dns = new DnsResolver({ timeout: opts.timeoutMs ?? 2000, tries: opts.tries ?? 2 });
  if (opts.servers) dns.setServers(opts.servers);
  const none = (err: NodeJS.ErrnoException) => {
    // The name exists without an address of this family: not an error by itself.
    if (err.code === 'ENODATA' || err.code === 'ENOTFOUND') return [] as string[];
    throw err;
  };
  return async (host) => {
    const [v4, v6] = await Promise.all([dns.resolve4(host).catch(none), dns.resolve6(host).catch(none)]);
    const all = [...v4, ...v6];
    if (all.length === 0) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
    return all;
  };
}
export const systemResolver: Resolver = createSystemResolver();

export type CheckedTarget = { ok: true; url: URL; address: string; family: 4 | 6 } | { ok: false; reason: string };

/**
 * Decides whether the service may send to a URL: its shape, then every address its host resolves to.
 * The address returned is the one to connect to (pinned), so a second lookup cannot swap it (DNS rebinding).
 */
export async function checkTarget(text: string, policy: TargetPolicy, resolve: Resolver = systemResolver): Promise<CheckedTarget> {
  const shape = checkTargetUrl(text, policy);
  if (!shape.ok) return shape;
  if (shape.loopback) return { ok: true, url: shape.url, address: '127.0.0.1', family: 4 };
  let addresses: string[];
  let timer: NodeJS.Timeout | undefined;
  try {
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(Object.assign(new Error('late'), { code: 'ETIMEOUT' })), RESOLVE_DEADLINE_MS);
    });
    addresses = await Promise.race([resolve(shape.url.hostname), late]);
  } catch (err) {
    if ((err as { code?: string }).code === 'ETIMEOUT')
      return { ok: false, reason: `the host ${shape.url.hostname} did not resolve within ${RESOLVE_DEADLINE_MS / 1000} s` };
    return notPublic(shape.url.hostname);
  } finally {
    clearTimeout(timer);
  }
  if (addresses.length === 0 || addresses.some((address) => checkAddress(address) !== null)) return notPublic(shape.url.hostname);
  const address = addresses[0]!;
  return { ok: true, url: shape.url, address, family: address.includes(':') ? 6 : 4 };
}

/**
 * One answer for a name that does not resolve and one that resolves to a private address, never naming
 * the address: a tenant must not learn from us which internal names exist or where they point.
 */
const notPublic = (host: string) => ({ ok: false as const, reason: `the host ${host} does not resolve to a public address` });
