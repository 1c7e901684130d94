import type { Logger } from '@switchyard/shared';
import type { ModelRegistry } from './model-registry';
import type { InteractionStore } from '../store/interactions/port';

export interface RebuildSchedule {
  /** Every this often: load newer snapshots and retrain organizations with new interactions. */
  intervalMs: number;
  /** After new interactions, retrain this much later (batches of ingestion share one training)... */
  delayMs: number;
  /** ...but not sooner than this after the previous training of the organization. */
  minIntervalMs: number;
}

/** Longer than any training; a replica that dies while training frees the lease this much later. */
const TRAINING_LEASE_MS = 10 * 60_000;

/** Retrains off the request path: on a schedule, and soon after interactions come in. */
export class RebuildScheduler {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly lastStart = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly models: ModelRegistry,
    private readonly interactions: InteractionStore,
    private readonly schedule: RebuildSchedule,
    private readonly logger: Logger,
    /** This replica, as the owner of training leases. */
    private readonly replicaId: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), this.schedule.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    for (const timeout of this.pending.values()) clearTimeout(timeout);
    this.pending.clear();
  }

  /** New interactions of the organization were stored. */
  interactionsRecorded(organization: string): void {
    if (this.pending.has(organization)) return;
    const since = Date.now() - (this.lastStart.get(organization) ?? -Infinity);
    const wait = Math.max(this.schedule.delayMs, this.schedule.minIntervalMs - since);
    const timeout = setTimeout(() => {
      this.pending.delete(organization);
      void this.rebuild(organization);
    }, wait);
    timeout.unref();
    this.pending.set(organization, timeout);
  }

  /** Trains unless the published model is current or another replica is training it already. */
  async rebuild(organization: string): Promise<void> {
    this.lastStart.set(organization, Date.now());
    try {
      await this.models.refresh(organization);
      if (!(await this.models.isStale(organization))) return;
      const trained = await this.models.rebuildIfLeased(
        organization,
        this.replicaId,
        TRAINING_LEASE_MS,
      );
      if (!trained)
        this.logger.debug({ organization }, 'another replica is training this organization');
    } catch (error) {
      this.logger.error(
        { err: error, organization },
        'recommendation model training failed; the previous model keeps serving',
      );
    }
  }

  private async tick(): Promise<void> {
    try {
      for (const organization of await this.interactions.organizations())
        await this.rebuild(organization);
    } catch (error) {
      this.logger.error({ err: error }, 'scheduled recommendation model refresh failed');
    }
  }
}
