import { newId } from '@switchyard/shared';
import type { QuotaTallyStore, TallyDelta } from '../store';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How long a tally change waits for others to go with it before it is written. */
export const TALLY_LINGER_MS = 100;

/**
 * This process's hard-quota tokens on their way to the durable tallies, off the call path: the
 * changes of calls (reservations, settlements, releases) are summed per (organization, period)
 * and written together at most every lingerMs, one write at a time, which keeps each tally
 * single-writer and costs one write per organization and linger instead of one per call.
 * Redis admits the calls; the tallies rebuild a counter lost with Redis, and the usage ledger
 * (fed by the calls' usage events) reconciles what a write lost with a crash.
 */
export class DurableQuota {
  /** One writer per process: its tallies are updated by nobody else. */
  private readonly writer = newId('qw');
  private pending = new Map<string, TallyDelta>();
  private waiters: Waiter[] = [];
  private flushing = false;
  private flushed: Promise<void> = Promise.resolve();
  private lingering: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: QuotaTallyStore,
    private readonly lingerMs = TALLY_LINGER_MS,
  ) {}

  /** Adds tokens (negative gives them back), written within the linger; resolves once they are. */
  add(organization: string, period: string, tokens: number): Promise<void> {
    const written = this.enqueue(organization, period, tokens);
    this.flushSoon(this.lingerMs);
    return written;
  }

  /** The durable total, this process's lingering settlements written first. */
  async total(organization: string, period: string): Promise<number> {
    await this.close();
    return this.store.total(organization, period);
  }

  /** Writes what is pending (also at graceful shutdown), without waiting out the linger. */
  async close(): Promise<void> {
    do {
      this.flushSoon(0);
      await this.flushed;
    } while (this.waiters.length > 0);
  }

  private enqueue(organization: string, period: string, tokens: number): Promise<void> {
    const key = `${organization}\u0000${period}`;
    const delta = this.pending.get(key);
    if (delta) delta.tokens += tokens;
    else this.pending.set(key, { organization, period, tokens });
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /**
   * Starts a write after delayMs unless one is out or lingering: the changes arriving meanwhile
   * go with it, or with the next one.
   */
  private flushSoon(delayMs: number): void {
    if (this.flushing || this.waiters.length === 0) return;
    if (delayMs > 0) {
      this.lingering ??= setTimeout(() => this.flushSoon(0), delayMs).unref();
      return;
    }
    clearTimeout(this.lingering);
    this.lingering = undefined;
    this.flushed = this.flush();
  }

  /**
   * One write of everything pending. What arrives while it is out waits out the rest of the
   * linger counted from this write's start, so under steady calls the writes come once per
   * linger rather than back to back (one per write's round trip).
   */
  private async flush(): Promise<void> {
    this.flushing = true;
    const startedAt = Date.now();
    const deltas = [...this.pending.values()].filter((d) => d.tokens !== 0);
    const waiters = this.waiters;
    this.pending = new Map();
    this.waiters = [];
    try {
      if (deltas.length > 0) await this.store.add(this.writer, newId('qb'), deltas);
      for (const w of waiters) w.resolve();
    } catch (error) {
      for (const w of waiters) w.reject(error);
    } finally {
      this.flushing = false;
    }
    this.flushSoon(Math.max(1, startedAt + this.lingerMs - Date.now()));
  }
}
