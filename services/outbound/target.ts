import { lookup } from 'node:dns/promises';
import { checkAddress, checkTargetUrl, type TargetPolicy } from '../../domain/address-check.js';

/** Resolves a host name to all its addresses (replaceable in tests, which must not query real DNS). */
export type Resolver = (host: string) => Promise<string[]>;
export const systemResolver: Resolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

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
  try {
    addresses = await resolve(shape.url.hostname);
  } catch {
    return { ok: false, reason: `the host ${shape.url.hostname} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `the host ${shape.url.hostname} does not resolve` };
  for (const address of addresses) {
    const refusal = checkAddress(address);
    if (refusal) return { ok: false, reason: `the host ${shape.url.hostname} resolves to a non-public address (${refusal})` };
  }
  const address = addresses[0]!;
  return { ok: true, url: shape.url, address, family: address.includes(':') ? 6 : 4 };
}
