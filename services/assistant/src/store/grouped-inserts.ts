import { isDuplicateKeyError } from '@switchyard/shared';
import { MongoBulkWriteError, type Collection, type OptionalUnlessRequiredId } from 'mongodb';

interface PendingInsert<T> {
  document: T;
  resolve: (inserted: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Inserts into one collection by group commit: documents given while an insert is out go
 * together in the next unordered insertMany, so a burst of calls costs one write instead of one
 * per call. Each document still succeeds or collides on its own `_id`.
 */
export class GroupedInserts<T extends { _id: string }> {
  private queue: Array<PendingInsert<T>> = [];
  private flushing = false;

  constructor(private readonly collection: Collection<T>) {}

  /** True once inserted; false when a document with its `_id` exists (another writer won). */
  insert(document: T): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ document, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue;
        this.queue = [];
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Array<PendingInsert<T>>): Promise<void> {
    const failed = new Map<number, unknown>();
    try {
      await this.collection.insertMany(
        batch.map((p) => p.document as OptionalUnlessRequiredId<T>),
        { ordered: false },
      );
    } catch (error) {
      const writeErrors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [];
      // Without per-document errors (a lost connection, a write concern error) no outcome is known.
      if (writeErrors.length === 0) return batch.forEach((p) => p.reject(error));
      for (const writeError of writeErrors) failed.set(writeError.index, writeError);
    }
    batch.forEach((p, index) => {
      const error = failed.get(index);
      if (error === undefined) p.resolve(true);
      else if (isDuplicateKeyError(error)) p.resolve(false);
      else p.reject(error);
    });
  }
}
