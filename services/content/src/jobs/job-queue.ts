import { AppError, bindToActiveContext, type Logger } from '@switchyard/shared';

export type Job = () => Promise<void>;

/** Runs background jobs with at most `concurrency` at once; the rest wait in FIFO order. */
export class JobQueue {
  private readonly waiting: Job[] = [];
  private running = 0;
  private accepting = true;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly logger: Logger,
  ) {}

  /** Jobs waiting plus running. */
  get pending(): number {
    return this.waiting.length + this.running;
  }

  /** False once stop() was called. */
  isAccepting(): boolean {
    return this.accepting;
  }

  /** Throws unavailable once stop() was called, so no request is accepted that would not run. */
  ensureAccepting(): void {
    if (!this.accepting)
      throw new AppError('unavailable', 'the content service is shutting down; try again', [], 1);
  }

  enqueue(job: Job): void {
    this.ensureAccepting();
    // Runs in the submitting request's trace, not in whichever job's callback starts it.
    this.waiting.push(bindToActiveContext(job));
    this.pump();
  }

  /** Stops taking jobs and resolves once every accepted job has finished. */
  async stop(): Promise<void> {
    this.accepting = false;
    if (this.pending === 0) return;
    await new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  private pump(): void {
    while (this.running < this.concurrency && this.waiting.length > 0) {
      const job = this.waiting.shift()!;
      this.running++;
      job()
        .catch((error: unknown) => this.logger.error({ err: error }, 'background job failed'))
        .finally(() => {
          this.running--;
          this.pump();
          if (this.pending === 0) this.notifyIdle();
        });
    }
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
