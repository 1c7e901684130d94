import type { AttemptToRecord, DeliveryStore } from '../store/deliveries/port';

/** Outcomes written in one store call at most; a longer backlog is written in several. */
const MAX_BATCH = 100;
/**
 * Batch writes in flight at once; outcomes arriving meanwhile wait for the next batch. Several,
 * because a server may apply one bulk write's updates one after another (FerretDB does).
 */
const WRITES_IN_FLIGHT = 8;

interface Waiting {
  item: AttemptToRecord;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Records attempts' outcomes in batches (group commit): an outcome is written at once when a
 * write slot is free, otherwise with every outcome that arrives while the writes in flight run,
 * in one store call. Each caller's promise settles when its outcome is durable (or could not be
 * written: its delivery stays claimed and is attempted again once the lease expires).
 */
export class AttemptRecorder {
  private waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(private readonly store: Pick<DeliveryStore, 'recordAttempts'>) {}

  record(item: AttemptToRecord): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.write();
    });
  }

  private write(): void {
    while (this.inFlight < WRITES_IN_FLIGHT && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      this.inFlight++;
      this.store
        .recordAttempts(batch.map((w) => w.item))
        .then(
          () => batch.forEach((w) => w.resolve()),
          (error: unknown) => batch.forEach((w) => w.reject(error)),
        )
        .finally(() => {
          this.inFlight--;
          this.write();
        });
    }
  }
}
