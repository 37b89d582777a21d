import { isIPv6 } from 'node:net';

/** The 8 groups of an IPv6 address (zone dropped, a trailing dotted IPv4 folded into the last two). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0]!;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const gap = tail === undefined ? [] : Array<string>(8 - front.length - back.length).fill('0');
  return [...front, ...gap, ...back].map((g) => parseInt(g, 16));
}

/**
 * Whom per-IP limits and throttles count: an IPv4 address as it is; an IPv6 client by its /64
 * ("2001:db8:1:2::/64"), since one subscriber is handed a whole /64 and could otherwise take a fresh
 * address for every request; an IPv4-mapped IPv6 address as its IPv4 address.
 */
export function clientKey(ip: string): string {
  if (!isIPv6(ip.split('%')[0]!)) return ip;
  const g = ipv6Groups(ip);
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(':')}::/64`;
}
