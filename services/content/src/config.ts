import * as path from 'node:path';
import { hostname } from 'node:os';
import { readServiceEnv, str, num, type ServiceEnv } from '@switchyard/shared';

/** The registry shipped with the service (config/models.json next to src/ and dist/). */
export const BUNDLED_REGISTRY_PATH = path.resolve(__dirname, '..', '..', 'config', 'models.json');

export interface ContentConfig extends ServiceEnv {
  /** Model id (or alias) used when a request leaves `model` empty; '' means the registry's defaultModel. */
  defaultModel: string;
  /** The model registry file (JSON with comments allowed). */
  modelRegistryPath: string;
  /** Inline registry JSON (containers); when set it replaces the file. */
  modelRegistryJson: string;
  /** A GGUF file (LOCAL_MODEL_PATH) added to the registry as a llama-cpp model, the default one; '' for none. */
  localModelPath: string;
  /** The id of that model (LOCAL_MODEL_ID); default: the file name without .gguf, lower-cased. */
  localModelId: string;
  /** Largest prompt or text accepted, in tokens; more answers payload_too_large. */
  maxInputTokens: number;
  /** Background generations running at once; the rest wait in the queue. A job mostly waits (model, bus, database): 4 carried about 9 jobs/s under bench:stack load. */
  asyncConcurrency: number;
  /** This replica's lease owner id; stable across restarts of the same replica (default: host name). */
  instanceId: string;
  /** How long a replica may hold an async request without renewing its lease. */
  requestLeaseMs: number;
  /** Period of the outbox relay that republishes events the bus refused (OUTBOX_RELAY_INTERVAL_MS). */
  outboxRelayIntervalMs: number;
  /** How long a publish may take before its event goes to the outbox (OUTBOX_PUBLISH_TIMEOUT_MS). */
  outboxPublishTimeoutMs: number;
  /** How long a finished billable call's answer is kept for retries (IDEMPOTENCY_TTL_SECONDS, as at the gateway). */
  idempotencyTtlSeconds: number;
}

interface ContentEnv {
  DEFAULT_MODEL: string;
  MODEL_REGISTRY_PATH: string;
  MODEL_REGISTRY_JSON: string;
  LOCAL_MODEL_PATH: string;
  LOCAL_MODEL_ID: string;
  MAX_INPUT_TOKENS: number;
  ASYNC_CONCURRENCY: number;
  INSTANCE_ID: string;
  REQUEST_LEASE_MS: number;
  OUTBOX_RELAY_INTERVAL_MS: number;
  OUTBOX_PUBLISH_TIMEOUT_MS: number;
  IDEMPOTENCY_TTL_SECONDS: number;
}

function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`invalid configuration:\n  ${name}: must be an integer >= 1, got ${value}`);
  }
  return value;
}

/** LOCAL_MODEL_ID, else the GGUF's file name as a model id ("Qwen2.5-0.5B_q4.gguf" -> "qwen2.5-0.5b-q4"). */
function localModelId(id: string, file: string): string {
  if (id !== '' || file === '') return id;
  const base = path
    .basename(file)
    .replace(/\.gguf$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9.:/-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  return base || 'local-gguf';
}

/** Reads the content service's configuration; throws listing every invalid variable. */
export function loadContentConfig(env: NodeJS.ProcessEnv = process.env): ContentConfig {
  const { service, values } = readServiceEnv<ContentEnv>(
    { grpcPort: 50051, database: 'switchyard_content' },
    {
      DEFAULT_MODEL: str({ default: '' }),
      MODEL_REGISTRY_PATH: str({ default: BUNDLED_REGISTRY_PATH }),
      MODEL_REGISTRY_JSON: str({ default: '' }),
      LOCAL_MODEL_PATH: str({ default: '' }),
      LOCAL_MODEL_ID: str({ default: '' }),
      MAX_INPUT_TOKENS: num({ default: 32000 }),
      ASYNC_CONCURRENCY: num({ default: 16 }),
      INSTANCE_ID: str({ default: hostname() }),
      REQUEST_LEASE_MS: num({ default: 300_000 }),
      OUTBOX_RELAY_INTERVAL_MS: num({ default: 1000 }),
      OUTBOX_PUBLISH_TIMEOUT_MS: num({ default: 2000 }),
      IDEMPOTENCY_TTL_SECONDS: num({ default: 86_400 }),
    },
    env,
  );
  return {
    ...service,
    defaultModel: values.DEFAULT_MODEL.trim(),
    modelRegistryPath: values.MODEL_REGISTRY_PATH,
    modelRegistryJson: values.MODEL_REGISTRY_JSON,
    localModelPath: values.LOCAL_MODEL_PATH.trim(),
    localModelId: localModelId(values.LOCAL_MODEL_ID.trim(), values.LOCAL_MODEL_PATH.trim()),
    maxInputTokens: positiveInteger('MAX_INPUT_TOKENS', values.MAX_INPUT_TOKENS),
    asyncConcurrency: positiveInteger('ASYNC_CONCURRENCY', values.ASYNC_CONCURRENCY),
    instanceId: values.INSTANCE_ID,
    requestLeaseMs: positiveInteger('REQUEST_LEASE_MS', values.REQUEST_LEASE_MS),
    outboxRelayIntervalMs: positiveInteger(
      'OUTBOX_RELAY_INTERVAL_MS',
      values.OUTBOX_RELAY_INTERVAL_MS,
    ),
    outboxPublishTimeoutMs: positiveInteger(
      'OUTBOX_PUBLISH_TIMEOUT_MS',
      values.OUTBOX_PUBLISH_TIMEOUT_MS,
    ),
    idempotencyTtlSeconds: positiveInteger(
      'IDEMPOTENCY_TTL_SECONDS',
      values.IDEMPOTENCY_TTL_SECONDS,
    ),
  };
}
