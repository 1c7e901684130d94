import type { Logger } from '@switchyard/shared';
import type { AsyncRequestRecord, RequestStore } from '../store';

export interface LeaseKeeperOptions {
  store: RequestStore;
  /** Queues a claimed request to run (throws once the queue stopped). */
  enqueue(record: AsyncRequestRecord): void;
  /** How many more requests this replica should take on now (e.g. free queue slots). */
  capacity(): number;
  leaseMs: number;
  logger: Logger;
  /** Largest number of own requests taken back at start. */
  resumeLimit?: number;
}

/**
 * Keeps this replica's request leases alive and picks up requests whose holder died:
 * once started it takes back, in the background, its own unfinished requests (a restart of the
 * same replica) and any expired ones, so the service serves at once whatever its backlog; then,
 * every third of the lease, it renews what it holds and claims expired leases while it has
 * capacity. The job queue bounds how many of the resumed requests run at once.
 */
export class RequestLeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<void> = Promise.resolve();
  private resuming: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: LeaseKeeperOptions) {}

  /** Re-queues requests a previous process of this replica (or a dead one) accepted but did not finish. */
  async resume(): Promise<number> {
    const limit = this.options.resumeLimit ?? 1000;
    const started = Date.now();
    let resumed = 0;
    while (resumed < limit && !this.stopped) {
      const record = await this.options.store.claimNext({ includeOwn: true });
      if (!record) break;
      this.options.enqueue(record);
      resumed++;
    }
    if (resumed > 0)
      this.options.logger.info(
        { count: resumed, ms: Date.now() - started },
        'resumed processing requests',
      );
    return resumed;
  }

  /**
   * Resumes in the background and maintains every third of the lease meanwhile: a long resume must
   * not hold up the renewals of what this process holds (two claims of one request are settled by
   * the store: one of them fails).
   */
  start(): void {
    this.resuming = this.resume().then(
      () => undefined,
      (error: unknown) =>
        this.options.logger.warn(
          { err: error },
          'resuming requests failed; expired leases are claimed on the next ticks',
        ),
    );
    const interval = Math.max(50, Math.floor(this.options.leaseMs / 3));
    this.timer = setInterval(() => {
      this.tick = this.tick.then(() => this.maintain());
    }, interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.resuming;
    await this.tick;
  }

  private async maintain(): Promise<void> {
    try {
      await this.options.store.renewLeases();
      while (this.timer && this.options.capacity() > 0) {
        const record = await this.options.store.claimNext();
        if (!record) break;
        this.options.logger.info(
          { requestId: record.requestId },
          'took over a request whose lease expired',
        );
        this.options.enqueue(record);
      }
    } catch (error) {
      this.options.logger.warn(
        { err: error },
        'request lease maintenance failed; retrying on the next tick',
      );
    }
  }
}
