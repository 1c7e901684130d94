import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { Allowlist } from './allowlist';
import { blockedReason } from './blocked-ranges';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a hostname to every address (A and AAAA). Injectable so tests can fake DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (hostname) => {
  const found = await lookup(hostname, { all: true, verbatim: true });
  return found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 }));
};

export interface UrlPolicyOptions {
  requireHttps: boolean;
  allowPrivateNetworks: boolean;
  allowlist: string[];
}

export type UrlCheck =
  | { allowed: true; url: URL; hostname: string; addresses: ResolvedAddress[] }
  | { allowed: false; reason: string };

const MAX_URL_LENGTH = 2048;

function refuse(reason: string): UrlCheck {
  return { allowed: false, reason };
}

/**
 * Where webhooks may go. Every address a hostname resolves to must be public (or allowlisted),
 * and the sender connects to exactly the addresses checked here, so a DNS answer that changes
 * between check and connect (rebinding) cannot reach an internal address.
 */
export class UrlPolicy {
  private readonly allowlist: Allowlist;

  constructor(
    private readonly options: UrlPolicyOptions,
    private readonly resolve: Resolver = systemResolver,
  ) {
    this.allowlist = new Allowlist(options.allowlist);
  }

  async check(raw: string): Promise<UrlCheck> {
    const parsed = this.parse(raw);
    if (!(parsed instanceof URL)) return parsed;
    const hostname = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
    let addresses: ResolvedAddress[];
    if (ipaddr.isValid(hostname)) {
      addresses = [{ address: hostname, family: ipaddr.parse(hostname).kind() === 'ipv6' ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolve(hostname);
      } catch {
        return refuse(`host ${hostname} does not resolve`);
      }
      if (addresses.length === 0) return refuse(`host ${hostname} does not resolve`);
    }
    const problem = this.addressProblem(hostname, addresses);
    return problem ? refuse(problem) : { allowed: true, url: parsed, hostname, addresses };
  }

  /** Checks that need no DNS: length, scheme, credentials, host. */
  private parse(raw: string): URL | { allowed: false; reason: string } {
    if (raw.length > MAX_URL_LENGTH)
      return { allowed: false, reason: `url is longer than ${MAX_URL_LENGTH} characters` };
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return { allowed: false, reason: 'url is not a valid absolute URL' };
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      return { allowed: false, reason: 'url scheme must be https or http' };
    }
    if (url.protocol === 'http:' && this.options.requireHttps)
      return { allowed: false, reason: 'url must use https' };
    if (url.username || url.password)
      return { allowed: false, reason: 'url must not contain credentials' };
    if (!url.hostname) return { allowed: false, reason: 'url has no host' };
    return url;
  }

  private addressProblem(hostname: string, addresses: ResolvedAddress[]): string | undefined {
    if (this.options.allowPrivateNetworks || this.allowlist.hasHost(hostname)) return undefined;
    for (const { address } of addresses) {
      const parsed = ipaddr.parse(address);
      if (this.allowlist.hasAddress(parsed)) continue;
      const reason = blockedReason(parsed);
      if (reason) return `address ${address} of ${hostname} is not allowed (${reason})`;
    }
    return undefined;
  }
}
