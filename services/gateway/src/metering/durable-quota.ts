import { newId } from '@switchyard/shared';
import type { QuotaTallyStore, TallyDelta } from '../store';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** How long a settlement may wait for a reservation's write to go with, before it is written alone. */
export const SETTLEMENT_LINGER_MS = 100;

/**
 * This process's hard-quota tokens on their way to the durable tallies, by group commit: deltas
 * added while a write is out are summed per (organization, period) and go together in the next
 * write, so a burst of calls costs one write per organization instead of one per call. One write
 * at a time, which keeps each tally single-writer.
 *
 * Reservations are written at once (the call waits for them). Settlements are not waited for, so
 * they linger for the next reservation's write: at low concurrency a settlement written alone
 * occupied the one write slot and the next call's reservation waited behind it (two tally
 * writes in a row per call at c=1).
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
    private readonly lingerMs = SETTLEMENT_LINGER_MS,
  ) {}

  /** Adds tokens and writes them now (with whatever is pending); resolves once they are written. */
  add(organization: string, period: string, tokens: number): Promise<void> {
    const written = this.enqueue(organization, period, tokens);
    this.flushSoon(0);
    return written;
  }

  /** Adds tokens (a settlement; negative gives them back) to go with the next write, or alone within the linger. */
  addLater(organization: string, period: string, tokens: number): Promise<void> {
    const written = this.enqueue(organization, period, tokens);
    this.flushSoon(this.lingerMs);
    return written;
  }

  /** The durable total, this process's lingering settlements written first. */
  async total(organization: string, period: string): Promise<number> {
    await this.close();
    return this.store.total(organization, period);
  }

  /** Writes what is pending (also at graceful shutdown). */
  async close(): Promise<void> {
    this.flushSoon(0);
    await this.flushed;
  }

  private enqueue(organization: string, period: string, tokens: number): Promise<void> {
    const key = `${organization}\u0000${period}`;
    const delta = this.pending.get(key);
    if (delta) delta.tokens += tokens;
    else this.pending.set(key, { organization, period, tokens });
    return new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  /** A write in progress takes whatever is pending when it ends; otherwise one starts after delayMs. */
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

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.waiters.length > 0) {
        const deltas = [...this.pending.values()].filter((d) => d.tokens !== 0);
        const waiters = this.waiters;
        this.pending = new Map();
        this.waiters = [];
        try {
          if (deltas.length > 0) await this.store.add(this.writer, newId('qb'), deltas);
          for (const w of waiters) w.resolve();
        } catch (error) {
          for (const w of waiters) w.reject(error);
        }
      }
    } finally {
      this.flushing = false; // in the same turn as the last check: an add() after it starts a new write
    }
  }
}
