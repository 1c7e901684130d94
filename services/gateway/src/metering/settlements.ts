import type { CounterChange, Counters, Logger } from '@switchyard/shared';

/** A counter's move in one write: from `before` to `after` (the changes summed in it). */
export interface CounterMove {
  before: number;
  after: number;
}

interface Pending {
  change: CounterChange;
  /** What each caller learns: the counter's move in the write that took its change. */
  callers: Array<(move: CounterMove | undefined) => void>;
}

/**
 * Counter settlements of this replica by group commit: changes that come while a write is out
 * are summed per counter and go together in the next write, one script per organization (the
 * hash tag its counters share), so a burst of calls settles in a few round trips instead of one
 * or more per call, and never on the response path. When nothing is out a change is written in
 * the same turn (a later call of this replica then finds it counted).
 */
export class CounterSettlements {
  private pending = new Map<string, Pending>();
  private writing: Promise<void> | undefined;

  constructor(
    private readonly counters: Pick<Counters, 'adjust'>,
    private readonly logger: Logger,
  ) {}

  /**
   * Adds the changes; resolves with each counter's move once they are written (undefined for
   * one whose write failed, logged: the counter keeps what it had, or that changed nothing).
   * Never rejects.
   */
  add(changes: CounterChange[]): Promise<Array<CounterMove | undefined>> {
    const written = changes.map(
      (change) =>
        new Promise<CounterMove | undefined>((resolve) => {
          const found = this.pending.get(change.key);
          if (found) found.change.amount += change.amount;
          else this.pending.set(change.key, { change: { ...change }, callers: [] });
          this.pending.get(change.key)!.callers.push(resolve);
        }),
    );
    // Only with something to write: a write always awaits, so it is set here before it ends.
    if (!this.writing && this.pending.size > 0) this.writing = this.write();
    return Promise.all(written);
  }

  /** Waits for everything added so far to be written (graceful shutdown). */
  async close(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async write(): Promise<void> {
    try {
      while (this.pending.size > 0) {
        const batch = [...this.pending.values()];
        this.pending = new Map();
        await Promise.all([...byHashTag(batch).values()].map((group) => this.writeGroup(group)));
      }
    } finally {
      this.writing = undefined;
    }
  }

  private async writeGroup(group: Pending[]): Promise<void> {
    const changes = group.map((p) => p.change).filter((c) => c.amount !== 0);
    let totals: number[] = [];
    try {
      totals = await this.counters.adjust(changes);
    } catch (error) {
      this.logger.warn(
        { err: error, counters: changes.length },
        'counter settlements failed; the counters keep the estimates',
      );
    }
    const byKey = new Map(changes.map((c, i) => [c.key, totals[i]]));
    for (const { change, callers } of group) {
      const after = byKey.get(change.key);
      const move = after === undefined ? undefined : { before: after - change.amount, after };
      for (const resolve of callers) resolve(move);
    }
  }
}

/** Changes grouped by their keys' hash tag (one Redis Cluster slot each). */
function byHashTag(batch: Pending[]): Map<string, Pending[]> {
  const groups = new Map<string, Pending[]>();
  for (const pending of batch) {
    const tag = /\{([^}]+)\}/.exec(pending.change.key)?.[1] ?? pending.change.key;
    const group = groups.get(tag);
    if (group) group.push(pending);
    else groups.set(tag, [pending]);
  }
  return groups;
}
