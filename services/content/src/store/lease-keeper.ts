import type { Logger } from '@switchyard/shared';
import type { AsyncRequestRecord, RequestStore } from './request-store';

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
 * at start it takes back its own unfinished requests (a restart of the same replica) and any
 * expired ones; then, every third of the lease, it renews what it holds and claims expired
 * leases while it has capacity.
 */
export class RequestLeaseKeeper {
  private timer: NodeJS.Timeout | undefined;
  private tick: Promise<void> = Promise.resolve();

  constructor(private readonly options: LeaseKeeperOptions) {}

  /** Re-queues requests a previous process of this replica (or a dead one) accepted but did not finish. */
  async resume(): Promise<number> {
    const limit = this.options.resumeLimit ?? 1000;
    let resumed = 0;
    while (resumed < limit) {
      const record = await this.options.store.claimNext({ includeOwn: true });
      if (!record) break;
      this.options.enqueue(record);
      resumed++;
    }
    if (resumed > 0) this.options.logger.info({ count: resumed }, 'resumed processing requests');
    return resumed;
  }

  start(): void {
    const interval = Math.max(50, Math.floor(this.options.leaseMs / 3));
    this.timer = setInterval(() => {
      this.tick = this.tick.then(() => this.maintain());
    }, interval);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.tick;
  }

  private async maintain(): Promise<void> {
    try {
      await this.options.store.renewLeases();
      while (this.timer && this.options.capacity() > 0) {
        const record = await this.options.store.claimNext();
        if (!record) break;
        this.options.logger.info({ requestId: record.requestId }, 'took over a request whose lease expired');
        this.options.enqueue(record);
      }
    } catch (error) {
      this.options.logger.warn({ err: error }, 'request lease maintenance failed; retrying on the next tick');
    }
  }
}
