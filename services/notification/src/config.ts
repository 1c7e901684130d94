import {
  num,
  readEnv,
  str,
  urlPolicyOptionsFromEnv,
  type UrlPolicyOptions,
} from '@switchyard/shared';
import { parseDuration, parseRetrySchedule } from './duration';
import { isValidSecret } from './signing/secrets';

export interface NotificationConfig {
  grpcHost: string;
  grpcPort: number;
  /** Also listen on this Unix socket (GRPC_UNIX_SOCKET; empty: TCP only), for callers on the same host. */
  grpcUnixSocket: string;
  mode: 'embedded' | 'distributed';
  logLevel: string;
  urlPolicy: UrlPolicyOptions;
  delivery: {
    /** Delay before each attempt, relative to the previous attempt (ms). */
    retrySchedule: number[];
    timeoutMs: number;
    maxConcurrencyPerHost: number;
    /** Attempts in flight in total. */
    maxConcurrency: number;
    sweepIntervalMs: number;
    /** A webhook failing without a success for this long is disabled (ms). */
    disableAfterMs: number;
  };
  /** Signing secret of the 'dev' organization, when configured. */
  devSigningSecret?: string;
  usage: {
    monthlyTokenQuota: number;
    /** Shares of the quota that trigger usage_threshold, ascending, e.g. [0.9, 1]. */
    thresholdShares: number[];
    /** Ledger entries left unapplied this long are re-applied; also the sweep interval (ms). */
    ledgerSweepMs: number;
  };
  /** Comma-separated Kafka brokers; empty means the in-process bus. */
  kafkaBrokers: string;
  mongo: {
    /** Empty means in-memory stores. */
    uri: string;
    database: string;
  };
  /** AES-256-GCM key for webhook and signing secrets at rest (32 bytes), when configured. */
  secretsEncryptionKey?: Buffer;
  /** Earlier keys, still accepted for reading during a key rotation (SECRETS_ENCRYPTION_OLD_KEYS). */
  secretsEncryptionOldKeys: Buffer[];
  /** Port of the Prometheus /metrics endpoint; 0 disables it. */
  metricsPort: number;
}

function parseShares(text: string): number[] {
  const shares = text.split(',').map((part) => Number(part.trim()));
  if (shares.some((share) => !Number.isFinite(share) || share <= 0 || share > 10)) {
    throw new Error(`USAGE_THRESHOLD_SHARES: invalid share list "${text}" (e.g. 0.9,1.0)`);
  }
  return [...new Set(shares)].sort((a, b) => a - b);
}

function positive(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be an integer >= 1`);
  return value;
}

interface RawEnv {
  GRPC_HOST: string;
  GRPC_PORT: number;
  GRPC_UNIX_SOCKET: string;
  LOG_LEVEL: string;
  WEBHOOK_RETRY_SCHEDULE: string;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_CONCURRENCY_PER_HOST: number;
  WEBHOOK_MAX_CONCURRENCY: number;
  WEBHOOK_SWEEP_INTERVAL_MS: number;
  WEBHOOK_DISABLE_AFTER: string;
  DEV_SIGNING_SECRET: string;
  DEFAULT_MONTHLY_TOKEN_QUOTA: number;
  USAGE_THRESHOLD_SHARES: string;
  USAGE_LEDGER_SWEEP_MS: number;
  KAFKA_BROKERS: string;
  MONGODB_URI: string;
  MONGODB_DATABASE: string;
  SECRETS_ENCRYPTION_KEY: string;
  SECRETS_ENCRYPTION_OLD_KEYS: string;
  METRICS_PORT: number;
}

/** SECRETS_ENCRYPTION_KEY: base64 of exactly 32 bytes. Required for Mongo outside embedded mode. */
function encryptionKey(text: string, mongoUri: string, embedded: boolean): Buffer | undefined {
  if (!text) {
    if (mongoUri && !embedded) {
      throw new Error(
        'SECRETS_ENCRYPTION_KEY is required when MONGODB_URI is set (base64 of 32 random bytes: openssl rand -base64 32)',
      );
    }
    return undefined;
  }
  return parseKey('SECRETS_ENCRYPTION_KEY', text);
}

function parseKey(name: string, text: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== 32 || key.toString('base64') !== text.trim())
    throw new Error(`${name} must be base64 of exactly 32 bytes (openssl rand -base64 32)`);
  return key;
}

/** SECRETS_ENCRYPTION_OLD_KEYS: comma-separated earlier keys, read but never used to seal. */
function oldEncryptionKeys(text: string, current: Buffer | undefined): Buffer[] {
  const keys = text
    .split(',')
    .filter((part) => part.trim() !== '')
    .map((part) => parseKey('SECRETS_ENCRYPTION_OLD_KEYS (each key)', part));
  if (keys.length > 0 && !current)
    throw new Error(
      'SECRETS_ENCRYPTION_OLD_KEYS needs SECRETS_ENCRYPTION_KEY (the key that seals)',
    );
  return keys;
}

/** Reads the service configuration; throws listing the problems (fail fast). */
export function loadNotificationConfig(env: NodeJS.ProcessEnv = process.env): NotificationConfig {
  const { SWITCHYARD_MODE: mode } = readEnv<{ SWITCHYARD_MODE: string }>(
    { SWITCHYARD_MODE: str({ choices: ['embedded', 'distributed'], default: 'distributed' }) },
    env,
  ) as unknown as { SWITCHYARD_MODE: string };
  // Embedded mode runs on a laptop: local receivers over plain http are the normal case there.
  const embedded = mode === 'embedded';
  const e = readEnv<RawEnv>(
    {
      GRPC_HOST: str({ default: '0.0.0.0' }),
      // num, not port: 0 (any free port) is valid for embedded mode and tests.
      GRPC_PORT: num({ default: 50054 }),
      GRPC_UNIX_SOCKET: str({ default: '' }),
      LOG_LEVEL: str({ default: 'info' }),
      WEBHOOK_RETRY_SCHEDULE: str({ default: '0,5s,5m,30m,2h,5h,10h,10h' }),
      WEBHOOK_TIMEOUT_MS: num({ default: 15_000 }),
      WEBHOOK_MAX_CONCURRENCY_PER_HOST: num({ default: 4 }),
      WEBHOOK_MAX_CONCURRENCY: num({ default: 256 }),
      WEBHOOK_SWEEP_INTERVAL_MS: num({ default: 1000 }),
      WEBHOOK_DISABLE_AFTER: str({ default: '5d' }),
      DEV_SIGNING_SECRET: str({ default: '' }),
      DEFAULT_MONTHLY_TOKEN_QUOTA: num({ default: 1_000_000 }),
      USAGE_THRESHOLD_SHARES: str({ default: '0.9,1.0' }),
      USAGE_LEDGER_SWEEP_MS: num({ default: 60_000 }),
      KAFKA_BROKERS: str({ default: '' }),
      MONGODB_URI: str({ default: '' }),
      MONGODB_DATABASE: str({ default: 'switchyard_notification' }),
      SECRETS_ENCRYPTION_KEY: str({ default: '' }),
      SECRETS_ENCRYPTION_OLD_KEYS: str({ default: '' }),
      // Embedded mode shares one process with the mesh, which exposes metrics itself.
      METRICS_PORT: num({ default: embedded ? 0 : 9464 }),
    },
    env,
    // readEnv's declared return type resolves to never for value-typed T (see report); the values match RawEnv.
  ) as unknown as RawEnv;
  if (!Number.isInteger(e.GRPC_PORT) || e.GRPC_PORT < 0 || e.GRPC_PORT > 65535) {
    throw new Error('GRPC_PORT must be an integer between 0 and 65535');
  }
  if (!Number.isInteger(e.METRICS_PORT) || e.METRICS_PORT < 0 || e.METRICS_PORT > 65535) {
    throw new Error('METRICS_PORT must be an integer between 0 (disabled) and 65535');
  }
  const key = encryptionKey(e.SECRETS_ENCRYPTION_KEY, e.MONGODB_URI, embedded);
  if (e.DEV_SIGNING_SECRET && !isValidSecret(e.DEV_SIGNING_SECRET)) {
    throw new Error('DEV_SIGNING_SECRET must be whsec_ followed by base64 of 24 to 32 bytes');
  }
  return {
    grpcHost: e.GRPC_HOST,
    grpcPort: e.GRPC_PORT,
    grpcUnixSocket: e.GRPC_UNIX_SOCKET.trim(),
    mode: mode as NotificationConfig['mode'],
    logLevel: e.LOG_LEVEL,
    urlPolicy: urlPolicyOptionsFromEnv(env),
    delivery: {
      retrySchedule: parseRetrySchedule(e.WEBHOOK_RETRY_SCHEDULE),
      timeoutMs: positive('WEBHOOK_TIMEOUT_MS', e.WEBHOOK_TIMEOUT_MS),
      maxConcurrencyPerHost: positive(
        'WEBHOOK_MAX_CONCURRENCY_PER_HOST',
        e.WEBHOOK_MAX_CONCURRENCY_PER_HOST,
      ),
      maxConcurrency: positive('WEBHOOK_MAX_CONCURRENCY', e.WEBHOOK_MAX_CONCURRENCY),
      sweepIntervalMs: positive('WEBHOOK_SWEEP_INTERVAL_MS', e.WEBHOOK_SWEEP_INTERVAL_MS),
      disableAfterMs: parseDuration(e.WEBHOOK_DISABLE_AFTER),
    },
    devSigningSecret: e.DEV_SIGNING_SECRET || undefined,
    usage: {
      monthlyTokenQuota: positive('DEFAULT_MONTHLY_TOKEN_QUOTA', e.DEFAULT_MONTHLY_TOKEN_QUOTA),
      thresholdShares: parseShares(e.USAGE_THRESHOLD_SHARES),
      ledgerSweepMs: positive('USAGE_LEDGER_SWEEP_MS', e.USAGE_LEDGER_SWEEP_MS),
    },
    kafkaBrokers: e.KAFKA_BROKERS,
    mongo: { uri: e.MONGODB_URI, database: e.MONGODB_DATABASE },
    secretsEncryptionKey: key,
    secretsEncryptionOldKeys: oldEncryptionKeys(e.SECRETS_ENCRYPTION_OLD_KEYS, key),
    metricsPort: e.METRICS_PORT,
  };
}
