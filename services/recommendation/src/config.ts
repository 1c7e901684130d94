import { listenPort, num, readEnv, str } from '@switchyard/shared';

export interface RecommendationConfig {
  grpcHost: string;
  /** 0 binds an ephemeral port (tests, embedded mode). */
  grpcPort: number;
  /** Most items or interactions accepted in one UpsertItems / RecordInteractions call. */
  maxBatchSize: number;
  logLevel: string;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads the service's environment; throws listing every bad variable (fail fast at boot). */
export function loadRecommendationConfig(env: NodeJS.ProcessEnv = process.env): RecommendationConfig {
  const e = readEnv<{ GRPC_HOST: string; GRPC_PORT: number; MAX_BATCH_SIZE: number; LOG_LEVEL: string }>(
    {
      GRPC_HOST: str({ default: '0.0.0.0' }),
      GRPC_PORT: listenPort({ default: 50053 }),
      MAX_BATCH_SIZE: num({ default: 1000 }),
      LOG_LEVEL: str({ default: 'info', choices: LOG_LEVELS }),
    },
    env,
  );
  // envalid's num() accepts any number; a batch limit must be a positive integer.
  if (!Number.isInteger(e.MAX_BATCH_SIZE) || e.MAX_BATCH_SIZE < 1) {
    throw new Error(`invalid configuration:\n  MAX_BATCH_SIZE: must be an integer >= 1, got ${e.MAX_BATCH_SIZE}`);
  }
  return { grpcHost: e.GRPC_HOST, grpcPort: e.GRPC_PORT, maxBatchSize: e.MAX_BATCH_SIZE, logLevel: e.LOG_LEVEL };
}
