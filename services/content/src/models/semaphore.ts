import { AppError } from '@switchyard/shared';

interface Waiter {
  grant: () => void;
  reject: (error: Error) => void;
}

/**
 * At most `limit` holders at once; later callers wait in FIFO order until a slot frees, their
 * deadline passes (timeout) or their call is cancelled. With `maxWaiting`, a caller that finds
 * that many already waiting is refused at once: 503 unavailable with Retry-After.
 */
export class Semaphore {
  private active = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly limit: number,
    private readonly name: string,
    private readonly maxWaiting = Infinity,
  ) {}

  /** Holders now, and callers waiting for a slot. */
  get load(): { active: number; waiting: number } {
    return { active: this.active, waiting: this.waiting.length };
  }

  async acquire(deadline?: number, signal?: AbortSignal): Promise<() => void> {
    if (this.active < this.limit) {
      this.active++;
      return this.releaser();
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new AppError(
        'unavailable',
        `model ${this.name} is busy: ${this.active} requests running and ${this.waiting.length} waiting; retry later`,
        [{ reason: 'the model queue is full', model: this.name }],
        1,
      );
    }
    await new Promise<void>((resolve, reject) => this.enqueue(resolve, reject, deadline, signal));
    return this.releaser();
  }

  private enqueue(
    resolve: () => void,
    reject: (error: Error) => void,
    deadline?: number,
    signal?: AbortSignal,
  ): void {
    let timer: NodeJS.Timeout | undefined;
    const leave = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const index = this.waiting.indexOf(waiter);
      if (index >= 0) this.waiting.splice(index, 1);
    };
    const onAbort = () => {
      leave();
      reject(new AppError('unavailable', 'the call was cancelled while waiting for the model'));
    };
    const waiter: Waiter = {
      // The slot passes straight from the releasing holder to this waiter (active stays the same).
      grant: () => {
        leave();
        resolve();
      },
      reject,
    };
    this.waiting.push(waiter);
    if (deadline !== undefined) {
      timer = setTimeout(
        () => {
          leave();
          reject(
            new AppError(
              'timeout',
              `model ${this.name} is at its concurrency limit and the call deadline passed while waiting`,
            ),
          );
        },
        Math.max(0, deadline - Date.now()),
      );
    }
    signal?.addEventListener('abort', onAbort, { once: true });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting[0];
      if (next) next.grant();
      else this.active--;
    };
  }
}
