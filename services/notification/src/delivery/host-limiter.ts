/** At most `limit` attempts in flight per destination host, so one slow receiver cannot take every slot. */
export class HostLimiter {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly limit: number) {}

  tryAcquire(host: string): boolean {
    const current = this.inFlight.get(host) ?? 0;
    if (current >= this.limit) return false;
    this.inFlight.set(host, current + 1);
    return true;
  }

  release(host: string): void {
    const current = this.inFlight.get(host) ?? 0;
    if (current <= 1) this.inFlight.delete(host);
    else this.inFlight.set(host, current - 1);
  }

  active(host: string): number {
    return this.inFlight.get(host) ?? 0;
  }
}

/** The limiter key of a URL: host and port, lower-cased. */
export function hostKey(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
