import type { Logger } from '@switchyard/shared';
import { decodeModel, encodeModel, ItemModel, rankPositive } from './item-model';
import { PopularityTally } from './popularity-tally';
import type { TrainingOptions } from './train-model';
import { trainInWorker } from './trainer';
import { collectColumns, columnsPopularity, type InteractionColumns } from './training-set';
import type { UserInteraction } from './types';
import type { InteractionStore } from '../store/interactions/port';
import type { ModelSnapshotStore } from '../store/snapshots/port';

export interface ModelRegistryOptions {
  interactions: InteractionStore;
  snapshots: ModelSnapshotStore;
  logger: Logger;
  training: TrainingOptions;
  halfLifeDays: number;
  /**
   * From this many interactions on, an organization's first training publishes a popularity
   * snapshot before it trains (see publishPopularity). Smaller logs train in about a second.
   */
  popularityFirstFrom?: number;
  /** Tells the other replicas a new version is stored (model.published). */
  announce?: (organization: string, version: number, algorithm: string) => Promise<void>;
}

/** A turn of the event loop for the calls in flight, between two pieces of work on this thread. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** See ModelRegistryOptions.popularityFirstFrom. */
const POPULARITY_FIRST_FROM = 100_000;
/** Items a popularity snapshot ranks. */
const POPULAR_HEAD = 1000;

/**
 * The organizations' models as this replica serves them: the newest published snapshot. Any
 * replica may train (on demand, or when interactions came in): it publishes the next version to
 * the snapshot store, the first publisher of a version wins, and every replica loads it.
 */
export class ModelRegistry {
  private readonly models = new Map<string, ItemModel>();
  private readonly rebuilding = new Map<string, Promise<ItemModel | undefined>>();
  /** Organizations without a model yet: popularity of what this replica recorded meanwhile. */
  private readonly tallies = new Map<string, PopularityTally>();

  constructor(private readonly options: ModelRegistryOptions) {}

  current(organization: string): ItemModel | undefined {
    return this.models.get(organization);
  }

  /** Interactions this replica stored: counted for popularity while the organization has no model. */
  recorded(organization: string, interactions: readonly UserInteraction[]): void {
    if (this.models.has(organization) || interactions.length === 0) return;
    let tally = this.tallies.get(organization);
    if (!tally) this.tallies.set(organization, (tally = new PopularityTally()));
    tally.add(interactions);
  }

  /**
   * Before an organization's first model (and its popularity snapshot) is served: its items by
   * the popularity of what this replica recorded since it started, most popular first.
   */
  popularBeforeModel(organization: string): Array<{ itemId: string; weight: number }> {
    if (this.models.has(organization)) return [];
    return this.tallies.get(organization)?.ranked() ?? [];
  }

  private serve(organization: string, model: ItemModel): void {
    this.models.set(organization, model);
    this.tallies.delete(organization);
  }

  /** Loads the newest published snapshot when it is newer than the one served. */
  async refresh(organization: string): Promise<ItemModel | undefined> {
    const served = this.models.get(organization);
    const latest = await this.options.snapshots.latestVersion(organization);
    if (latest === 0 || (served && served.data.version >= latest)) return served;
    const snapshot = await this.options.snapshots.latest(organization);
    if (!snapshot) return served;
    let data;
    try {
      data = decodeModel(snapshot.blob);
    } catch (error) {
      // Models are derived data: one this version cannot read is retrained, never fatal.
      this.options.logger.warn(
        { err: error, organization, version: snapshot.version },
        'recommendation model snapshot unreadable (an earlier format?); it will be retrained',
      );
      return served;
    }
    const model = await ItemModel.load(data);
    if (!served || served.data.version < model.data.version) this.serve(organization, model);
    return this.models.get(organization);
  }

  async refreshAll(): Promise<void> {
    for (const organization of await this.options.interactions.organizations())
      await this.refresh(organization);
  }

  /**
   * true when interactions were stored since the served model was trained. "More than trained
   * on", not "different": a store's count may lag the log it counts (see MongoInteractionStore).
   */
  async isStale(organization: string): Promise<boolean> {
    const count = await this.options.interactions.count(organization);
    return count > (this.models.get(organization)?.data.interactions ?? 0);
  }

  /**
   * Scheduled training: only when no other replica holds the organization's training lease (that
   * one publishes, and this replica loads its model from the event). false when skipped.
   */
  async rebuildIfLeased(organization: string, owner: string, leaseMs: number): Promise<boolean> {
    if (!(await this.options.snapshots.claimTraining(organization, owner, leaseMs))) return false;
    try {
      await this.rebuild(organization);
    } finally {
      await this.options.snapshots.releaseTraining(organization, owner);
    }
    return true;
  }

  /**
   * Trains (in a worker thread) and publishes a new version, on everything stored before the
   * call; one training at a time per organization. A call made while one runs waits for it, then
   * trains again if interactions were stored since that one read the log.
   */
  async rebuild(organization: string): Promise<ItemModel | undefined> {
    const running = this.rebuilding.get(organization);
    if (running) {
      await running.catch(() => undefined);
      if (!(await this.isStale(organization))) return this.models.get(organization);
      return this.rebuild(organization);
    }
    const training = this.train(organization).finally(() => this.rebuilding.delete(organization));
    this.rebuilding.set(organization, training);
    return training;
  }

  private async train(organization: string): Promise<ItemModel | undefined> {
    const store = this.options.interactions;
    const columns = store.columns
      ? await store.columns(organization)
      : await collectColumns(store.scan(organization), await store.count(organization));
    if (columns.length === 0) return this.models.get(organization);
    let version = (await this.options.snapshots.latestVersion(organization)) + 1;
    const popularityFirst =
      version === 1 &&
      columns.length >= (this.options.popularityFirstFrom ?? POPULARITY_FIRST_FROM);
    if (popularityFirst && (await this.publishPopularity(organization, columns))) version++;
    const { blob, data } = await trainInWorker(
      columns,
      this.options.training,
      this.options.halfLifeDays,
      version,
    );
    const published = await this.options.snapshots.publish(organization, { version, blob });
    if (!published) return this.refresh(organization); // another replica published this version first
    this.serve(organization, await ItemModel.load(data));
    this.options.logger.info(
      {
        organization,
        version,
        algorithm: data.algorithm,
        items: data.itemIds.length,
        interactions: data.interactions,
        trainingMs: data.trainingMs,
      },
      'recommendation model published',
    );
    await this.options.announce?.(organization, version, data.algorithm);
    return this.models.get(organization);
  }

  /**
   * The organization's first snapshot, popularity alone (computed here in a few milliseconds per
   * million interactions), published while its first model trains: every replica answers from
   * it meanwhile. It counts as trained on no interaction, so it never passes for a current model.
   */
  private async publishPopularity(
    organization: string,
    columns: InteractionColumns,
  ): Promise<boolean> {
    const popularity = columnsPopularity(columns);
    await turn();
    const model = await ItemModel.load({
      algorithm: 'popularity',
      version: 1,
      trainedAt: new Date().toISOString(),
      trainingMs: 0,
      users: columns.userCount,
      interactions: 0,
      itemIds: columns.itemIds,
      popularity,
      // The head only (selected, not sorted): enough until the model replaces it.
      popularOrder: rankPositive(popularity, columns.itemIds, POPULAR_HEAD).order,
    });
    await turn();
    const published = await this.options.snapshots.publish(organization, {
      version: 1,
      blob: encodeModel(model.data),
    });
    if (!published) return false;
    if (!this.models.has(organization)) this.serve(organization, model);
    await this.options.announce?.(organization, 1, 'popularity');
    return true;
  }
}
