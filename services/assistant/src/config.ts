import { num, readServiceEnv, str, type ServiceEnv } from '@switchyard/shared';

export interface AssistantConfig extends ServiceEnv {
  /** Messages kept per session; older ones drop off. */
  sessionHistoryLimit: number;
  /** The content service, whose Complete/CompleteStream RPCs answer for non-builtin models. */
  contentAddr: string;
  /** Deadline of one call to the content service (a whole stream included). */
  contentDeadlineMs: number;
  /**
   * Model of the assistants when neither the request nor the agent's profile names one
   * (ASSISTANT_MODEL): 'builtin' unless the operator names a registry model. Fetching or
   * configuring a model (DEFAULT_MODEL, LOCAL_MODEL_PATH) never changes it.
   */
  defaultModel: string;
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
  /** Tokens one message of a conversation may have (413 payload_too_large above). */
  messageMaxTokens: number;
  /** How long a finished reply is kept for retries (IDEMPOTENCY_TTL_SECONDS, as at the gateway). */
  idempotencyTtlSeconds: number;
  /**
   * How long agent profiles and knowledge catalogs are served from memory (READ_CACHE_TTL_MS): the
   * bound on staleness if an `assistant.changed` event is missed; 0 reads the store every turn.
   */
  readCacheTtlMs: number;
}

const MIN_HISTORY = 2;

interface AssistantEnv {
  SESSION_HISTORY_LIMIT: number;
  CONTENT_ADDR: string;
  CONTENT_DEADLINE_MS: number;
  ASSISTANT_MODEL: string;
  REDIS_URL: string;
  OUTBOX_RELAY_INTERVAL_MS: number;
  OUTBOX_PUBLISH_TIMEOUT_MS: number;
  IDEMPOTENCY_TTL_SECONDS: number;
  RECOMMENDATION_ADDR: string;
  HISTORY_TOKEN_BUDGET: number;
  MESSAGE_MAX_TOKENS: number;
  READ_CACHE_TTL_MS: number;
}

/** Reads the assistant's environment; throws listing every invalid variable. */
export function loadAssistantConfig(env: NodeJS.ProcessEnv = process.env): AssistantConfig {
  const { service, values } = readServiceEnv<AssistantEnv>(
    { grpcPort: 50052, database: 'switchyard_assistant' },
    {
      SESSION_HISTORY_LIMIT: num({ default: 50 }),
      CONTENT_ADDR: str({ default: '127.0.0.1:50051' }),
      CONTENT_DEADLINE_MS: num({ default: 30_000 }),
      ASSISTANT_MODEL: str({ default: 'builtin' }),
      REDIS_URL: str({ default: '' }),
      OUTBOX_RELAY_INTERVAL_MS: num({ default: 1000 }),
      OUTBOX_PUBLISH_TIMEOUT_MS: num({ default: 2000 }),
      IDEMPOTENCY_TTL_SECONDS: num({ default: 86_400 }),
      RECOMMENDATION_ADDR: str({ default: '127.0.0.1:50053' }),
      HISTORY_TOKEN_BUDGET: num({ default: 6000 }),
      MESSAGE_MAX_TOKENS: num({ default: 4000 }),
      READ_CACHE_TTL_MS: num({ default: 30_000 }),
    },
    env,
  );
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
  if (!Number.isInteger(values.MESSAGE_MAX_TOKENS) || values.MESSAGE_MAX_TOKENS < 16)
    problems.push('MESSAGE_MAX_TOKENS: must be an integer >= 16');
  if (!Number.isInteger(values.READ_CACHE_TTL_MS) || values.READ_CACHE_TTL_MS < 0)
    problems.push('READ_CACHE_TTL_MS: must be an integer >= 0');
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    ...service,
    sessionHistoryLimit: limit,
    contentAddr: values.CONTENT_ADDR.trim(),
    contentDeadlineMs: values.CONTENT_DEADLINE_MS,
    defaultModel: values.ASSISTANT_MODEL.trim() || 'builtin',
    redisUrl: values.REDIS_URL.trim(),
    outboxRelayIntervalMs: values.OUTBOX_RELAY_INTERVAL_MS,
    outboxPublishTimeoutMs: values.OUTBOX_PUBLISH_TIMEOUT_MS,
    idempotencyTtlSeconds: values.IDEMPOTENCY_TTL_SECONDS,
    recommendationAddr: values.RECOMMENDATION_ADDR.trim(),
    historyTokenBudget: values.HISTORY_TOKEN_BUDGET,
    messageMaxTokens: values.MESSAGE_MAX_TOKENS,
    readCacheTtlMs: values.READ_CACHE_TTL_MS,
  };
}
