import { describe, expect, it } from 'vitest';
import { addressKey } from '../src/address-key';

describe('addressKey: what a per-address rate limit counts by', () => {
  it('keeps an IPv4 address as it is, and an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(addressKey('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('ip:203.0.113.9');
    expect(addressKey('::ffff:cb00:7109')).toBe('ip:203.0.113.9');
  });

  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = 'ip:2001:db8:0:1::/64';
    for (const written of ['2001:db8:0:1::1', '2001:DB8::1:0:0:0:7', '2001:0db8:0000:0001:abcd:ef01:2345:6789']) {
      expect(addressKey(written)).toBe(key);
    }
    expect(addressKey('fe80::1%eth0')).toBe('ip:fe80:0:0:0::/64');
    expect(addressKey('::1')).toBe('ip:0:0:0:0::/64');
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key);
  });

  it('hashes whatever else a proxy passed on, into a key the store can hold', () => {
    for (const junk of ['unknown', 'a\u0000b', 'x'.repeat(1000), '203.0.113.9, 198.51.100.1']) {
      expect(addressKey(junk)).toMatch(/^ip:[\w-]{43}$/);
    }
  });
});
