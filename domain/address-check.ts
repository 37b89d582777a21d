import ipaddr from 'ipaddr.js';

/** Why an outbound target is refused; null means allowed. */
export type Refusal = string | null;

export interface TargetPolicy {
  /** ALLOW_LOOPBACK_TARGETS: http(s)://127.0.0.1:<port> and localhost:<port> become allowed, nothing more. */
  allowLoopback: boolean;
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1']);

/**
 * Checks one resolved address. Only globally routable unicast passes: loopback, private, link-local
 * (cloud metadata included), CGNAT, multicast, reserved, unspecified, and IPv6 forms that embed IPv4
 * (mapped, NAT64, 6to4, Teredo) are refused; a mapped IPv4 address is judged as the IPv4 it carries.
 */
export function checkAddress(address: string, policy: TargetPolicy): Refusal {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const ip = ipaddr.process(address);
  const range = ip.range();
  if (range === 'unicast') return null;
  if (range === 'loopback' && policy.allowLoopback && ip.kind() === 'ipv4' && address.replace(/^::ffff:/i, '').startsWith('127.')) return null;
  return `the address ${ip.toString()} is a ${range} address, not a public one`;
}

/**
 * Checks the shape of a target URL before any lookup: https with a host name (no credentials, no IP
 * literal, no local-only name). With allowLoopback, http or https to 127.0.0.1 or localhost also pass.
 */
export function checkTargetUrl(text: string, policy: TargetPolicy): { ok: true; url: URL; loopback: boolean } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'must not carry credentials' };
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (policy.allowLoopback && LOOPBACK_NAMES.has(host) && (url.protocol === 'http:' || url.protocol === 'https:')) {
    return { ok: true, url, loopback: true };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'must be an https URL' };
  if (ipaddr.isValid(host)) return { ok: false, reason: 'must name a host, not an IP address' };
  if (!host.includes('.') || /\.(localhost|local|internal|intranet|lan|home|corp|localdomain)$/.test(host) || host === 'localhost') {
    return { ok: false, reason: `the host ${host} is not a public name` };
  }
  return { ok: true, url, loopback: false };
}
