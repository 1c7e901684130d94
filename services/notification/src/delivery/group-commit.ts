/** Items written in one call at most; a longer backlog is written in several. */
const MAX_BATCH = 100;

interface Waiting<T> {
  item: T;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Writes items in batches (group commit): an item is written at once when a write slot is free,
 * otherwise with every item that arrives while the writes in flight run, in one call. Each
 * caller's promise settles when its item is written (or could not be: the caller's delivery
 * stays claimed and is attempted again once the lease expires).
 */
export class GroupCommit<T> {
  private waiting: Array<Waiting<T>> = [];
  private inFlight = 0;

  /**
   * writesInFlight: batch writes at once. Several for a store that may apply one bulk write's
   * items one after another (FerretDB does); one where a write is a single fast command (Redis).
   */
  constructor(
    private readonly write: (items: T[]) => Promise<unknown>,
    private readonly writesInFlight: number,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < this.writesInFlight && this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MAX_BATCH);
      this.inFlight++;
      this.write(batch.map((w) => w.item))
        .then(
          () => batch.forEach((w) => w.resolve()),
          (error: unknown) => batch.forEach((w) => w.reject(error)),
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }
}
