import { hostname } from 'node:os';
import { num, readServiceEnv, str, type ServiceEnv } from '@switchyard/shared';
import type { RebuildSchedule } from './model/rebuild-scheduler';
import type { TrainingOptions } from './model/train-model';

export interface RecommendationConfig extends ServiceEnv {
  /** Most items or interactions accepted in one UpsertItems / RecordInteractions call. */
  maxBatchSize: number;
  /** Names this replica's consumer group on the recommendation topic; defaults to host and pid. */
  replicaId: string;
  training: TrainingOptions;
  /** Half-life of an interaction's weight, in days; 0 keeps every interaction at full weight. */
  decayHalfLifeDays: number;
  rebuild: RebuildSchedule;
  /** Users whose profiles are cached per replica. */
  profileCacheSize: number;
  /** Catalog items cached per replica. */
  itemCacheSize: number;
}

/** Reads the service's environment; throws listing every bad variable (fail fast at boot). */
export function loadRecommendationConfig(
  env: NodeJS.ProcessEnv = process.env,
): RecommendationConfig {
  const { service, values: e } = readServiceEnv<{
    MAX_BATCH_SIZE: number;
    REPLICA_ID: string;
    RECOMMENDATION_ALGORITHM: string;
    RECOMMENDATION_EASE_LAMBDA: number;
    RECOMMENDATION_EASE_MAX_ITEMS: number;
    RECOMMENDATION_EASE_MIN_INTERACTIONS: number;
    RECOMMENDATION_KNN_NEIGHBOURS: number;
    RECOMMENDATION_SPARSE_EASE_LAMBDA: number;
    RECOMMENDATION_SPARSE_EASE_NEIGHBOURS: number;
    RECOMMENDATION_SPARSE_EASE_SOLVER_STEPS: number;
    RECOMMENDATION_SPARSE_EASE_ROW_LIMIT: number;
    RECOMMENDATION_HISTORY_CAP: number;
    RECOMMENDATION_DECAY_HALF_LIFE_DAYS: number;
    RECOMMENDATION_REBUILD_INTERVAL_MS: number;
    RECOMMENDATION_REBUILD_DELAY_MS: number;
    RECOMMENDATION_MIN_REBUILD_INTERVAL_MS: number;
    RECOMMENDATION_PROFILE_CACHE_SIZE: number;
    RECOMMENDATION_ITEM_CACHE_SIZE: number;
  }>(
    { grpcPort: 50053, database: 'switchyard_recommendation' },
    {
      MAX_BATCH_SIZE: num({ default: 1000 }),
      REPLICA_ID: str({ default: '' }),
      RECOMMENDATION_ALGORITHM: str({
        default: 'auto',
        choices: ['auto', 'ease', 'sparse_ease', 'item_knn'],
      }),
      RECOMMENDATION_EASE_LAMBDA: num({ default: 500 }),
      RECOMMENDATION_EASE_MAX_ITEMS: num({ default: 2500 }),
      RECOMMENDATION_EASE_MIN_INTERACTIONS: num({ default: 1000 }),
      RECOMMENDATION_KNN_NEIGHBOURS: num({ default: 100 }),
      RECOMMENDATION_SPARSE_EASE_LAMBDA: num({ default: 300 }),
      RECOMMENDATION_SPARSE_EASE_NEIGHBOURS: num({ default: 128 }),
      RECOMMENDATION_SPARSE_EASE_SOLVER_STEPS: num({ default: 3 }),
      RECOMMENDATION_SPARSE_EASE_ROW_LIMIT: num({ default: 200 }),
      RECOMMENDATION_HISTORY_CAP: num({ default: 1000 }),
      RECOMMENDATION_DECAY_HALF_LIFE_DAYS: num({ default: 0 }),
      RECOMMENDATION_REBUILD_INTERVAL_MS: num({ default: 300_000 }),
      RECOMMENDATION_REBUILD_DELAY_MS: num({ default: 1000 }),
      RECOMMENDATION_MIN_REBUILD_INTERVAL_MS: num({ default: 30_000 }),
      RECOMMENDATION_PROFILE_CACHE_SIZE: num({ default: 20_000 }),
      RECOMMENDATION_ITEM_CACHE_SIZE: num({ default: 100_000 }),
    },
    env,
  );
  // envalid's num() accepts any number; a batch limit must be a positive integer.
  if (!Number.isInteger(e.MAX_BATCH_SIZE) || e.MAX_BATCH_SIZE < 1) {
    throw new Error(
      `invalid configuration:\n  MAX_BATCH_SIZE: must be an integer >= 1, got ${e.MAX_BATCH_SIZE}`,
    );
  }
  const positive = {
    RECOMMENDATION_EASE_LAMBDA: e.RECOMMENDATION_EASE_LAMBDA,
    RECOMMENDATION_EASE_MAX_ITEMS: e.RECOMMENDATION_EASE_MAX_ITEMS,
    RECOMMENDATION_KNN_NEIGHBOURS: e.RECOMMENDATION_KNN_NEIGHBOURS,
    RECOMMENDATION_SPARSE_EASE_LAMBDA: e.RECOMMENDATION_SPARSE_EASE_LAMBDA,
    RECOMMENDATION_SPARSE_EASE_NEIGHBOURS: e.RECOMMENDATION_SPARSE_EASE_NEIGHBOURS,
    RECOMMENDATION_SPARSE_EASE_SOLVER_STEPS: e.RECOMMENDATION_SPARSE_EASE_SOLVER_STEPS,
    RECOMMENDATION_SPARSE_EASE_ROW_LIMIT: e.RECOMMENDATION_SPARSE_EASE_ROW_LIMIT,
    RECOMMENDATION_HISTORY_CAP: e.RECOMMENDATION_HISTORY_CAP,
    RECOMMENDATION_REBUILD_INTERVAL_MS: e.RECOMMENDATION_REBUILD_INTERVAL_MS,
    RECOMMENDATION_PROFILE_CACHE_SIZE: e.RECOMMENDATION_PROFILE_CACHE_SIZE,
    RECOMMENDATION_ITEM_CACHE_SIZE: e.RECOMMENDATION_ITEM_CACHE_SIZE,
  };
  const notPositive = Object.entries(positive).filter(([, value]) => !(value > 0));
  const negative = Object.entries({
    RECOMMENDATION_EASE_MIN_INTERACTIONS: e.RECOMMENDATION_EASE_MIN_INTERACTIONS,
    RECOMMENDATION_DECAY_HALF_LIFE_DAYS: e.RECOMMENDATION_DECAY_HALF_LIFE_DAYS,
    RECOMMENDATION_REBUILD_DELAY_MS: e.RECOMMENDATION_REBUILD_DELAY_MS,
    RECOMMENDATION_MIN_REBUILD_INTERVAL_MS: e.RECOMMENDATION_MIN_REBUILD_INTERVAL_MS,
  }).filter(([, value]) => value < 0);
  if (notPositive.length + negative.length > 0) {
    const lines = [
      ...notPositive.map(([k, v]) => `  ${k}: must be > 0, got ${v}`),
      ...negative.map(([k, v]) => `  ${k}: must be >= 0, got ${v}`),
    ];
    throw new Error(`invalid configuration:\n${lines.join('\n')}`);
  }
  return {
    ...service,
    maxBatchSize: e.MAX_BATCH_SIZE,
    replicaId: e.REPLICA_ID || `${hostname()}-${process.pid}`,
    training: {
      algorithm: e.RECOMMENDATION_ALGORITHM as TrainingOptions['algorithm'],
      easeLambda: e.RECOMMENDATION_EASE_LAMBDA,
      easeMaxItems: e.RECOMMENDATION_EASE_MAX_ITEMS,
      easeMinInteractions: e.RECOMMENDATION_EASE_MIN_INTERACTIONS,
      knnNeighbours: Math.floor(e.RECOMMENDATION_KNN_NEIGHBOURS),
      sparseEase: {
        lambda: e.RECOMMENDATION_SPARSE_EASE_LAMBDA,
        neighbours: Math.floor(e.RECOMMENDATION_SPARSE_EASE_NEIGHBOURS),
        solverSteps: Math.floor(e.RECOMMENDATION_SPARSE_EASE_SOLVER_STEPS),
        rowLimit: Math.floor(e.RECOMMENDATION_SPARSE_EASE_ROW_LIMIT),
        historyCap: Math.floor(e.RECOMMENDATION_HISTORY_CAP),
      },
    },
    decayHalfLifeDays: e.RECOMMENDATION_DECAY_HALF_LIFE_DAYS,
    rebuild: {
      intervalMs: e.RECOMMENDATION_REBUILD_INTERVAL_MS,
      delayMs: e.RECOMMENDATION_REBUILD_DELAY_MS,
      minIntervalMs: e.RECOMMENDATION_MIN_REBUILD_INTERVAL_MS,
    },
    profileCacheSize: Math.floor(e.RECOMMENDATION_PROFILE_CACHE_SIZE),
    itemCacheSize: Math.floor(e.RECOMMENDATION_ITEM_CACHE_SIZE),
  };
}
