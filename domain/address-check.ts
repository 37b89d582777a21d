import ipaddr from 'ipaddr.js';

/** Why an outbound target is refused; null means allowed. */
export type Refusal = string | null;

export interface TargetPolicy {
  /** ALLOW_LOOPBACK_TARGETS: http(s)://127.0.0.1:<port> and localhost:<port> become allowed, nothing more. */
  allowLoopback: boolean;
  /** Ports a public target may use besides https's 443 (OUTBOUND_EXTRA_PORTS); none by default. */
  extraPorts?: readonly number[];
}

/** The port a public target uses when its URL names none. */
const HTTPS_PORT = 443;

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1']);
/** Names that only mean something on a local network (or never resolve publicly). */
const LOCAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home|corp|localdomain|arpa|onion)$/;
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * Checks one resolved address. Only globally routable unicast passes: loopback, private, link-local
 * (cloud metadata included), CGNAT, multicast, reserved, unspecified, IPv6 outside 2000::/3 (the
 * IPv4-compatible ::/96 included), and IPv6 forms that embed IPv4 (NAT64, 6to4, Teredo) are refused;
 * a mapped IPv4 address is judged as the IPv4 it carries. ALLOW_LOOPBACK_TARGETS plays no part here:
 * it admits the literal names 127.0.0.1 and localhost (see checkTargetUrl), never a name that resolves to loopback.
 */
export function checkAddress(address: string): Refusal {
  if (!ipaddr.isValid(address)) return `"${address}" is not an IP address`;
  const ip = ipaddr.process(address);
  const range = ip.range();
  if (range !== 'unicast') return `the address ${ip.toString()} is a ${range} address, not a public one`;
  if (ip.kind() === 'ipv6' && !(ip as ipaddr.IPv6).match(GLOBAL_UNICAST_V6))
    return `the address ${ip.toString()} is outside the global unicast range 2000::/3`;
  return null;
}

/**
 * Checks the shape of a target URL before any lookup: https with a host name (no credentials, no IP
 * literal, no local-only name) on port 443 or one of the policy's extra ports. With allowLoopback, http or https to exactly 127.0.0.1 or localhost
 * also pass (after URL normalisation, so http://2130706433:8080/ is http://127.0.0.1:8080/).
 */
export function checkTargetUrl(
  text: string,
  policy: TargetPolicy,
): { ok: true; url: URL; loopback: boolean } | { ok: false; reason: string } {
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
  // A trailing dot names the same host (fully qualified): judge the name without it.
  const name = host.replace(/\.+$/, '');
  if (!name.includes('.') || LOCAL_NAME.test(name)) return { ok: false, reason: `the host ${host} is not a public name` };
  // Any port would let a tenant make the service probe other services of a public host; 443 and what the operator allows.
  const port = url.port === '' ? HTTPS_PORT : Number(url.port);
  if (port !== HTTPS_PORT && !policy.extraPorts?.includes(port))
    return { ok: false, reason: `must use the https port 443 (port ${port} is not allowed on this service)` };
  return { ok: true, url, loopback: false };
}
