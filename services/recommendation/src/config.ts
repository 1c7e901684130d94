import { listenPort, num, readEnv, str } from '@switchyard/shared';

export interface RecommendationConfig {
  grpcHost: string;
  /** 0 binds an ephemeral port (tests, embedded mode). */
  grpcPort: number;
  /** Most items or interactions accepted in one UpsertItems / RecordInteractions call. */
  maxBatchSize: number;
  logLevel: string;
  /** MongoDB connection string; '' keeps catalog and interactions in memory (lost on restart). */
  mongodbUri: string;
  mongodbDatabase: string;
  /** Comma-separated Kafka brokers; '' uses the in-process event bus. */
  kafkaBrokers: string;
  /** Port of the Prometheus GET /metrics endpoint (process entry only); 0 turns it off. */
  metricsPort: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads the service's environment; throws listing every bad variable (fail fast at boot). */
export function loadRecommendationConfig(env: NodeJS.ProcessEnv = process.env): RecommendationConfig {
  const e = readEnv<{
    GRPC_HOST: string;
    GRPC_PORT: number;
    MAX_BATCH_SIZE: number;
    LOG_LEVEL: string;
    MONGODB_URI: string;
    MONGODB_DATABASE: string;
    KAFKA_BROKERS: string;
    METRICS_PORT: number;
  }>(
    {
      GRPC_HOST: str({ default: '0.0.0.0' }),
      GRPC_PORT: listenPort({ default: 50053 }),
      MAX_BATCH_SIZE: num({ default: 1000 }),
      LOG_LEVEL: str({ default: 'info', choices: LOG_LEVELS }),
      MONGODB_URI: str({ default: '' }),
      MONGODB_DATABASE: str({ default: 'switchyard_recommendation' }),
      KAFKA_BROKERS: str({ default: '' }),
      METRICS_PORT: listenPort({ default: 9464 }),
    },
    env,
  );
  // envalid's num() accepts any number; a batch limit must be a positive integer.
  if (!Number.isInteger(e.MAX_BATCH_SIZE) || e.MAX_BATCH_SIZE < 1) {
    throw new Error(`invalid configuration:\n  MAX_BATCH_SIZE: must be an integer >= 1, got ${e.MAX_BATCH_SIZE}`);
  }
  return {
    grpcHost: e.GRPC_HOST,
    grpcPort: e.GRPC_PORT,
    maxBatchSize: e.MAX_BATCH_SIZE,
    logLevel: e.LOG_LEVEL,
    mongodbUri: e.MONGODB_URI.trim(),
    mongodbDatabase: e.MONGODB_DATABASE,
    kafkaBrokers: e.KAFKA_BROKERS.trim(),
    metricsPort: e.METRICS_PORT,
  };
}
