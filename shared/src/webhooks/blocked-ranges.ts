import ipaddr from 'ipaddr.js';

type Range = { cidr: [ipaddr.IPv4 | ipaddr.IPv6, number]; label: string };

function ranges(list: Array<[string, string]>): Range[] {
  return list.map(([cidr, label]) => ({ cidr: ipaddr.parseCIDR(cidr), label }));
}

/** IPv4 ranges a webhook may never reach (non-public or special-purpose, IANA registry). */
const BLOCKED_V4 = ranges([
  ['0.0.0.0/8', 'unspecified'],
  ['10.0.0.0/8', 'private (RFC 1918)'],
  ['100.64.0.0/10', 'carrier-grade NAT'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local / cloud metadata'],
  ['172.16.0.0/12', 'private (RFC 1918)'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay anycast'],
  ['192.168.0.0/16', 'private (RFC 1918)'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['255.255.255.255/32', 'broadcast'],
  ['240.0.0.0/4', 'reserved'],
]);

/** IPv6 ranges blocked by name; anything else outside global unicast 2000::/3 is blocked too. */
const BLOCKED_V6 = ranges([
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['64:ff9b::/96', 'NAT64'],
  ['64:ff9b:1::/48', 'NAT64 (local use)'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2002::/16', '6to4'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
]);

const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

function firstMatch(address: ipaddr.IPv4 | ipaddr.IPv6, list: Range[]): string | undefined {
  return list.find((range) => address.kind() === range.cidr[0].kind() && address.match(range.cidr))
    ?.label;
}

/**
 * Why an address must not be reached, or undefined when it is public. IPv4-mapped IPv6
 * (::ffff:a.b.c.d) is judged by its embedded IPv4 address.
 */
export function blockedReason(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (address.kind() === 'ipv4') return firstMatch(address, BLOCKED_V4);
  const v6 = address as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) {
    const embedded = blockedReason(v6.toIPv4Address());
    return embedded && `IPv4-mapped ${embedded}`;
  }
  const named = firstMatch(v6, BLOCKED_V6);
  if (named) return named;
  return v6.match(GLOBAL_UNICAST_V6) ? undefined : 'not global unicast';
}
