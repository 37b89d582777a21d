import { describe, expect, it } from 'vitest';
import { clientKey } from '../../domain/client-address.js';

describe('clientKey: whom per-IP limits count', () => {
  it('keeps IPv4 addresses, counts IPv6 per /64 and maps IPv4-mapped addresses back', () => {
    expect(clientKey('203.0.113.9')).toBe('203.0.113.9');
    expect(clientKey('2001:db8:1:2::a')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('2001:db8:1:3::a')).toBe('2001:db8:1:3::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKey('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(clientKey('::ffff:c633:6407')).toBe('198.51.100.7');
  });
});
