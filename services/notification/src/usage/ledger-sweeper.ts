import type { Logger } from '@switchyard/shared';
import { checkThresholds, type ThresholdDeps } from './thresholds';
import type { UsageLedger } from './usage-ledger';

export interface LedgerSweeperOptions {
  ledger: UsageLedger;
  thresholds: ThresholdDeps;
  /** Entries unapplied for longer than this are re-applied; also the pass interval (ms). */
  staleMs: number;
  logger: Logger;
}

/**
 * Completes ledger batches a crash left unapplied (appended, not yet projected or marked), at
 * start and then every staleMs, and checks the thresholds of the periods it touched. Kafka
 * normally redelivers such an event first; this covers events whose redelivery was lost (e.g. a
 * handler that exhausted its retries).
 */
export class LedgerSweeper {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(private readonly options: LedgerSweeperOptions) {}

  start(): void {
    this.schedule(0);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pass: returns the organization months it counted usage into. */
  async sweep(): Promise<number> {
    const periods = await this.options.ledger.sweep(this.options.staleMs);
    for (const counted of periods) await checkThresholds(this.options.thresholds, counted);
    if (periods.length > 0)
      this.options.logger.warn(
        { periods: periods.length },
        'usage ledger entries applied after an interrupted batch',
      );
    return periods.length;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(() => undefined)
        .catch((error: unknown) =>
          this.options.logger.error({ err: error }, 'usage ledger sweep failed'),
        )
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.schedule(this.options.staleMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }
}
