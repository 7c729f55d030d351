// Who a payer-page post is counted against: an IPv4 address as it is, however it is written; an IPv6
// address by its /64, the block one subscriber is handed whole.
import { describe, expect, it } from 'vitest';
import { clientOf } from '../../server/rate-limits/limiter.js';

describe('clientOf', () => {
  it('keeps an IPv4 address, and reads an IPv4-mapped IPv6 address as the IPv4 address it is', () => {
    expect(clientOf('198.51.100.7')).toBe('198.51.100.7');
    expect(clientOf('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(clientOf('::FFFF:c633:6407')).toBe('198.51.100.7');
    expect(clientOf('0:0:0:0:0:ffff:198.51.100.7')).toBe('198.51.100.7');
  });

  it('counts every address of an IPv6 /64 as one client, however it is written, and the next /64 as another', () => {
    const one = ['2001:db8:1:2::1', '2001:0db8:0001:0002:ffff:ffff:ffff:ffff', '2001:DB8:1:2:AAAA::', '2001:db8:1:2:0:0:0:1'];
    expect(new Set(one.map(clientOf))).toEqual(new Set(['2001:db8:1:2::/64']));
    expect(clientOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is no address as it came', () => {
    expect(clientOf('')).toBe('');
    expect(clientOf('not an address')).toBe('not an address');
  });
});
