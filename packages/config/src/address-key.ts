import { hash } from 'node:crypto';
import { isIPv4, isIPv6 } from 'node:net';

/** How a dual-stack listener writes an IPv4 caller's address. */
const MAPPED_PREFIX = '::ffff:';

/**
 * The rate-limit key of a caller's address (`ctx.ip`, which the app takes from X-Forwarded-For
 * since it runs with `proxy`): `ip:` and
 * - an IPv4 address as it is (an IPv4-mapped IPv6 address, `::ffff:192.0.2.1`, counts as its IPv4);
 * - for IPv6, the /64 network it belongs to, as `2001:db8:0:1::/64`: one subscriber or host is
 *   handed a whole /64 (RFC 6177, and SLAAC needs one), so counting single IPv6 addresses would
 *   give a single attacker 2^64 fresh allowances: per-address limits would limit nothing;
 * - anything else (a proxy that passed on something other than an address) by its SHA-256, so
 *   that every key is one the store can hold (no NUL, at most 255 characters).
 * Every per-address limit counts by this key: the auth server's (sign-in, token requests without
 * a client, leaked-token reports) and the contacts API's on invalid tokens.
 */
export function addressKey(ip: string): string {
  // The common cases first, without parsing: an IPv4 address, as such or IPv4-mapped.
  const v4 = ip.startsWith(MAPPED_PREFIX) ? ip.slice(MAPPED_PREFIX.length) : ip;
  if (isIPv4(v4)) return `ip:${v4}`;
  const address = ip.replace(/%.*$/, ''); // an IPv6 zone index names an interface, not a host
  if (isIPv4(address)) return `ip:${address}`;
  if (isIPv6(address)) {
    const groups = ipv6Groups(address);
    const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
    if (mapped) return `ip:${[groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.')}`;
    return `ip:${groups
      .slice(0, 4)
      .map((group) => group.toString(16))
      .join(':')}::/64`;
  }
  return `ip:${hash('sha256', ip, 'base64url')}`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 converted). */
function ipv6Groups(address: string): [number, number, number, number, number, number, number, number] {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const zeros = new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...zeros, ...right] as [number, number, number, number, number, number, number, number];
}
