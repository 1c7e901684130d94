import { num, listenPort, readEnv, str } from '@switchyard/shared';

export interface AssistantConfig {
  grpcHost: string;
  /** 0 picks a free port (tests). */
  grpcPort: number;
  /** Also listen on this Unix socket (GRPC_UNIX_SOCKET; empty: TCP only), for callers on the same host. */
  grpcUnixSocket: string;
  /** Messages kept per session; older ones drop off. */
  sessionHistoryLimit: number;
  /** The content service, whose Complete/CompleteStream RPCs answer for non-builtin models. */
  contentAddr: string;
  /** Deadline of one call to the content service (a whole stream included). */
  contentDeadlineMs: number;
  /** Model used when a request names none: 'builtin' (offline engine) or a content registry model. */
  defaultModel: string;
  logLevel: string;
  /** MongoDB connection string; '' keeps sessions in memory (lost on restart). */
  mongodbUri: string;
  mongodbDatabase: string;
  /** Comma-separated Kafka brokers; '' uses the in-process event bus. */
  kafkaBrokers: string;
  /** Redis for state shared by replicas (the per-session lock); '' keeps it in this process (one replica). */
  redisUrl: string;
  /** Period of the outbox relay that republishes usage events the bus refused (OUTBOX_RELAY_INTERVAL_MS). */
  outboxRelayIntervalMs: number;
  /** How long a publish may take before its event goes to the outbox (OUTBOX_PUBLISH_TIMEOUT_MS). */
  outboxPublishTimeoutMs: number;
  /** The recommendation service (the recommend tool). */
  recommendationAddr: string;
  /** Tokens of system prompt plus history sent to a model; older turns are dropped to fit. */
  historyTokenBudget: number;
  /** Port of the Prometheus GET /metrics endpoint (process entry only); 0 turns it off. */
  metricsPort: number;
  /** How long a finished reply is kept for retries (IDEMPOTENCY_TTL_SECONDS, as at the gateway). */
  idempotencyTtlSeconds: number;
}

const MIN_HISTORY = 2;

interface AssistantEnv {
  GRPC_HOST: string;
  GRPC_PORT: number;
  GRPC_UNIX_SOCKET: string;
  SESSION_HISTORY_LIMIT: number;
  CONTENT_ADDR: string;
  CONTENT_DEADLINE_MS: number;
  DEFAULT_MODEL: string;
  LOG_LEVEL: string;
  MONGODB_URI: string;
  MONGODB_DATABASE: string;
  KAFKA_BROKERS: string;
  REDIS_URL: string;
  OUTBOX_RELAY_INTERVAL_MS: number;
  OUTBOX_PUBLISH_TIMEOUT_MS: number;
  METRICS_PORT: number;
  IDEMPOTENCY_TTL_SECONDS: number;
  RECOMMENDATION_ADDR: string;
  HISTORY_TOKEN_BUDGET: number;
}

/** Reads the assistant's environment; throws listing every invalid variable. */
export function loadAssistantConfig(env: NodeJS.ProcessEnv = process.env): AssistantConfig {
  // readEnv's declared return type resolves to never (shared bug, reported); the values are AssistantEnv.
  const values = readEnv<AssistantEnv>(
    {
      GRPC_HOST: str({ default: '0.0.0.0' }),
      GRPC_PORT: listenPort({ default: 50052 }),
      GRPC_UNIX_SOCKET: str({ default: '' }),
      SESSION_HISTORY_LIMIT: num({ default: 50 }),
      CONTENT_ADDR: str({ default: '127.0.0.1:50051' }),
      CONTENT_DEADLINE_MS: num({ default: 30_000 }),
      DEFAULT_MODEL: str({ default: 'builtin' }),
      LOG_LEVEL: str({
        default: 'info',
        choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
      }),
      MONGODB_URI: str({ default: '' }),
      MONGODB_DATABASE: str({ default: 'switchyard_assistant' }),
      KAFKA_BROKERS: str({ default: '' }),
      REDIS_URL: str({ default: '' }),
      OUTBOX_RELAY_INTERVAL_MS: num({ default: 1000 }),
      OUTBOX_PUBLISH_TIMEOUT_MS: num({ default: 2000 }),
      METRICS_PORT: listenPort({ default: 9464 }),
      IDEMPOTENCY_TTL_SECONDS: num({ default: 86_400 }),
      RECOMMENDATION_ADDR: str({ default: '127.0.0.1:50053' }),
      HISTORY_TOKEN_BUDGET: num({ default: 6000 }),
    },
    env,
  ) as unknown as AssistantEnv;
  const problems: string[] = [];
  const limit = values.SESSION_HISTORY_LIMIT;
  if (!Number.isInteger(limit) || limit < MIN_HISTORY)
    problems.push(`SESSION_HISTORY_LIMIT: must be an integer >= ${MIN_HISTORY}`);
  if (!(values.CONTENT_DEADLINE_MS > 0)) problems.push('CONTENT_DEADLINE_MS: must be > 0');
  if (values.CONTENT_ADDR.trim() === '') problems.push('CONTENT_ADDR: must be host:port');
  for (const name of [
    'OUTBOX_RELAY_INTERVAL_MS',
    'OUTBOX_PUBLISH_TIMEOUT_MS',
    'IDEMPOTENCY_TTL_SECONDS',
  ] as const) {
    if (!Number.isInteger(values[name]) || values[name] < 1)
      problems.push(`${name}: must be an integer >= 1`);
  }
  if (!Number.isInteger(values.HISTORY_TOKEN_BUDGET) || values.HISTORY_TOKEN_BUDGET < 100)
    problems.push('HISTORY_TOKEN_BUDGET: must be an integer >= 100');
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    grpcHost: values.GRPC_HOST,
    grpcPort: values.GRPC_PORT,
    grpcUnixSocket: values.GRPC_UNIX_SOCKET.trim(),
    sessionHistoryLimit: limit,
    contentAddr: values.CONTENT_ADDR.trim(),
    contentDeadlineMs: values.CONTENT_DEADLINE_MS,
    // An empty DEFAULT_MODEL (shared with content, where it means "the registry's default") stays builtin here.
    defaultModel: values.DEFAULT_MODEL.trim() || 'builtin',
    logLevel: values.LOG_LEVEL,
    mongodbUri: values.MONGODB_URI.trim(),
    mongodbDatabase: values.MONGODB_DATABASE,
    kafkaBrokers: values.KAFKA_BROKERS.trim(),
    redisUrl: values.REDIS_URL.trim(),
    outboxRelayIntervalMs: values.OUTBOX_RELAY_INTERVAL_MS,
    outboxPublishTimeoutMs: values.OUTBOX_PUBLISH_TIMEOUT_MS,
    metricsPort: values.METRICS_PORT,
    idempotencyTtlSeconds: values.IDEMPOTENCY_TTL_SECONDS,
    recommendationAddr: values.RECOMMENDATION_ADDR.trim(),
    historyTokenBudget: values.HISTORY_TOKEN_BUDGET,
  };
}
