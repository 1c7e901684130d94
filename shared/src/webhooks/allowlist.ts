import ipaddr from 'ipaddr.js';

/** WEBHOOK_ALLOWLIST: CIDRs (or single addresses) and hostnames ("*.example.com" covers subdomains). */
export class Allowlist {
  private readonly cidrs: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];
  private readonly hosts: string[] = [];

  constructor(entries: string[]) {
    for (const entry of entries) {
      if (entry.includes('/')) this.cidrs.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.isValid(entry)) {
        const address = ipaddr.parse(entry);
        this.cidrs.push([address, address.kind() === 'ipv4' ? 32 : 128]);
      } else this.hosts.push(entry.toLowerCase());
    }
  }

  hasHost(hostname: string): boolean {
    const host = hostname.toLowerCase();
    return this.hosts.some((entry) =>
      entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry,
    );
  }

  hasAddress(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
    const candidates = [address];
    if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) {
      candidates.push((address as ipaddr.IPv6).toIPv4Address());
    }
    return candidates.some((candidate) =>
      this.cidrs.some((cidr) => candidate.kind() === cidr[0].kind() && candidate.match(cidr)),
    );
  }
}
