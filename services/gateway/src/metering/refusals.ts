import {
  createEvent,
  newId,
  type AnyEvent,
  type EventPublisher,
  type Logger,
  type RefusalReason,
} from '@switchyard/shared';

/** How often counts are published: the usage report is this much behind the refusals at most. */
export const REFUSAL_FLUSH_MS = 1000;

interface Count {
  organization: string;
  day: string;
  reason: RefusalReason;
  count: number;
}

/**
 * The calls this replica refused with 429 before they ran (the hard quota, a key's request or
 * token rate), counted per organization, UTC day and reason and published to the usage ledger as
 * usage.refused events: at most one event per count and second, however fast a client retries
 * into its limit, so a refusal costs a map update, never a write of its own.
 *
 * A published count has an id of its own, and one that failed is published again with the same
 * id (the ledger counts an id once, so a publish that timed out but arrived is not counted twice);
 * while it waits, new refusals add to the next counts. Lost only if the process dies before its
 * counts are out (at most REFUSAL_FLUSH_MS of them, or the time the bus has been down).
 */
export class RefusalCounts {
  private counting = new Map<string, Count>();
  /** Counts taken out of `counting` as events, published again until the bus takes them. */
  private unpublished: AnyEvent[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private failing = false;
  private closed = false;

  constructor(
    private readonly bus: EventPublisher,
    private readonly logger: Logger,
    private readonly options: { flushMs?: number; now?: () => Date } = {},
  ) {}

  refused(organization: string, reason: RefusalReason): void {
    const day = (this.options.now?.() ?? new Date()).toISOString().slice(0, 10);
    const key = `${organization}\u0000${day}\u0000${reason}`;
    const found = this.counting.get(key);
    if (found) found.count += 1;
    else this.counting.set(key, { organization, day, reason, count: 1 });
    this.schedule();
  }

  /** The next flush, unless one is scheduled already. */
  private schedule(): void {
    if (this.closed) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.options.flushMs ?? REFUSAL_FLUSH_MS).unref();
  }

  /** Publishes what is counted (and what failed before); resolves when this attempt is over. */
  flush(): Promise<void> {
    this.flushing ??= this.publish().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** At shutdown: the last counts go out (or are logged with their numbers, never dropped silently). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    await this.flush();
    // Counts made while earlier ones waited go out in a second round.
    if (this.unpublished.length === 0 && this.counting.size > 0) await this.flush();
    const left = [
      ...this.unpublished.map((event) => ({ organization: event.organization, ...event.data })),
      ...this.counting.values(),
    ];
    if (left.length > 0)
      this.logger.error(
        { refused: left },
        'refused-call counts could not be published before shutdown',
      );
  }

  private async publish(): Promise<void> {
    // Counts wait while earlier ones are unpublished: one batch outstanding, whatever the outage.
    if (this.unpublished.length === 0) {
      this.unpublished = [...this.counting.values()].map(({ organization, ...data }) =>
        createEvent('usage.refused', {
          id: newId('evt_ref'),
          source: 'gateway',
          organization,
          data,
        }),
      );
      this.counting = new Map();
    }
    const left: AnyEvent[] = [];
    for (const event of this.unpublished) {
      try {
        await this.bus.publish(event);
      } catch (error) {
        left.push(event);
        if (!this.failing)
          this.logger.warn(
            { err: error, organization: event.organization, refused: event.data },
            'refused-call counts not published; they are published again with the next counts',
          );
      }
    }
    this.failing = left.length > 0;
    this.unpublished = left;
    if (left.length > 0 || this.counting.size > 0) this.schedule();
  }
}
