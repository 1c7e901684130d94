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
 * Re-applies ledger entries a crash left unapplied (appended, not yet projected or marked), at
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

  /** One pass: returns how many entries it applied. */
  async sweep(): Promise<number> {
    const entries = await this.options.ledger.sweep(this.options.staleMs);
    const periods = new Map(entries.map((e) => [`${e.organization}\u0000${e.period}`, e]));
    for (const entry of periods.values()) await checkThresholds(this.options.thresholds, entry.organization, entry.period, entry.occurredAt);
    if (entries.length > 0) this.options.logger.warn({ entries: entries.length }, 'usage ledger entries re-applied after an interrupted projection');
    return entries.length;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.sweep()
        .then(() => undefined)
        .catch((error: unknown) => this.options.logger.error({ err: error }, 'usage ledger sweep failed'))
        .finally(() => {
          this.running = undefined;
          if (this.timer) this.schedule(this.options.staleMs);
        });
    }, delayMs);
    this.timer.unref?.();
  }
}
