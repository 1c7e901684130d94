import { newId } from '@switchyard/shared';
import type { QuotaTallyStore, TallyDelta } from './quota-tally-store';

interface Waiter {
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * This process's hard-quota tokens on their way to the durable tallies, by group commit: deltas
 * added while a write is out are summed per (organization, period) and go together in the next
 * write, so a burst of calls costs one write per organization instead of one per call (a
 * document per call wrote twice per call and cut start:stack generate at c=32 from 905 to 50
 * calls/s on FerretDB). One write at a time, which keeps each tally single-writer.
 */
export class DurableQuota {
  /** One writer per process: its tallies are updated by nobody else. */
  private readonly writer = newId('qw');
  private pending = new Map<string, TallyDelta>();
  private waiters: Waiter[] = [];
  private flushing = false;

  constructor(private readonly store: QuotaTallyStore) {}

  /** Adds tokens (negative: gives them back); resolves once they are written. */
  add(organization: string, period: string, tokens: number): Promise<void> {
    const key = `${organization}\u0000${period}`;
    const delta = this.pending.get(key);
    if (delta) delta.tokens += tokens;
    else this.pending.set(key, { organization, period, tokens });
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  total(organization: string, period: string): Promise<number> {
    return this.store.total(organization, period);
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
          await this.store.add(this.writer, newId('qb'), deltas);
          for (const w of waiters) w.resolve();
        } catch (error) {
          for (const w of waiters) w.reject(error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
