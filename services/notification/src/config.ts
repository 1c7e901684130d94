import {
  num,
  readEnv,
  readServiceEnv,
  str,
  urlPolicyOptionsFromEnv,
  type ServiceEnv,
  type UrlPolicyOptions,
} from '@switchyard/shared';
import { parseDuration, parseRetrySchedule } from './duration';
import { isValidSecret } from './signing/secrets';

export interface NotificationConfig extends ServiceEnv {
  mode: 'embedded' | 'distributed';
  /** Redis for the webhook due queue (REDIS_URL); '' keeps it in this process. */
  redisUrl: string;
  urlPolicy: UrlPolicyOptions;
  delivery: {
    /** Delay before each attempt, relative to the previous attempt (ms). */
    retrySchedule: number[];
    timeoutMs: number;
    maxConcurrencyPerHost: number;
    /** Attempts in flight in total. */
    maxConcurrency: number;
    sweepIntervalMs: number;
    /** How long a batch of new deliveries waits for their first attempts at most (ms). */
    firstAttemptWaitMs: number;
    /** A host with attempts out that has answered none for this long is not waited for (ms). */
    hostStallMs: number;
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
  /** AES-256-GCM key for webhook and signing secrets at rest (32 bytes), when configured. */
  secretsEncryptionKey?: Buffer;
  /** Earlier keys, still accepted for reading during a key rotation (SECRETS_ENCRYPTION_OLD_KEYS). */
  secretsEncryptionOldKeys: Buffer[];
  /** How long recent events are listed after they were received (EVENT_RETENTION, ms). */
  eventRetentionMs: number;
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
  WEBHOOK_RETRY_SCHEDULE: string;
  WEBHOOK_TIMEOUT_MS: number;
  WEBHOOK_MAX_CONCURRENCY_PER_HOST: number;
  WEBHOOK_MAX_CONCURRENCY: number;
  WEBHOOK_SWEEP_INTERVAL_MS: number;
  WEBHOOK_FIRST_ATTEMPT_WAIT_MS: number;
  WEBHOOK_HOST_STALL_MS: number;
  WEBHOOK_DISABLE_AFTER: string;
  DEV_SIGNING_SECRET: string;
  DEFAULT_MONTHLY_TOKEN_QUOTA: number;
  USAGE_THRESHOLD_SHARES: string;
  USAGE_LEDGER_SWEEP_MS: number;
  SECRETS_ENCRYPTION_KEY: string;
  SECRETS_ENCRYPTION_OLD_KEYS: string;
  REDIS_URL: string;
  EVENT_RETENTION: string;
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
  const { service, values: e } = readServiceEnv<RawEnv>(
    // Embedded mode shares one process with the mesh, which exposes metrics itself.
    { grpcPort: 50054, database: 'switchyard_notification', metricsPort: embedded ? 0 : 9464 },
    {
      WEBHOOK_RETRY_SCHEDULE: str({ default: '0,5s,5m,30m,2h,5h,10h,10h' }),
      WEBHOOK_TIMEOUT_MS: num({ default: 15_000 }),
      WEBHOOK_MAX_CONCURRENCY_PER_HOST: num({ default: 4 }),
      WEBHOOK_MAX_CONCURRENCY: num({ default: 256 }),
      WEBHOOK_SWEEP_INTERVAL_MS: num({ default: 1000 }),
      WEBHOOK_FIRST_ATTEMPT_WAIT_MS: num({ default: 5000 }),
      WEBHOOK_HOST_STALL_MS: num({ default: 3000 }),
      WEBHOOK_DISABLE_AFTER: str({ default: '5d' }),
      DEV_SIGNING_SECRET: str({ default: '' }),
      DEFAULT_MONTHLY_TOKEN_QUOTA: num({ default: 1_000_000 }),
      USAGE_THRESHOLD_SHARES: str({ default: '0.9,1.0' }),
      USAGE_LEDGER_SWEEP_MS: num({ default: 60_000 }),
      SECRETS_ENCRYPTION_KEY: str({ default: '' }),
      SECRETS_ENCRYPTION_OLD_KEYS: str({ default: '' }),
      REDIS_URL: str({ default: '' }),
      EVENT_RETENTION: str({ default: '7d' }),
    },
    env,
  );
  const key = encryptionKey(e.SECRETS_ENCRYPTION_KEY, service.mongodbUri, embedded);
  if (e.DEV_SIGNING_SECRET && !isValidSecret(e.DEV_SIGNING_SECRET)) {
    throw new Error('DEV_SIGNING_SECRET must be whsec_ followed by base64 of 24 to 32 bytes');
  }
  return {
    ...service,
    mode: mode as NotificationConfig['mode'],
    redisUrl: e.REDIS_URL.trim(),
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
      firstAttemptWaitMs: positive(
        'WEBHOOK_FIRST_ATTEMPT_WAIT_MS',
        e.WEBHOOK_FIRST_ATTEMPT_WAIT_MS,
      ),
      hostStallMs: positive('WEBHOOK_HOST_STALL_MS', e.WEBHOOK_HOST_STALL_MS),
      disableAfterMs: parseDuration(e.WEBHOOK_DISABLE_AFTER),
    },
    devSigningSecret: e.DEV_SIGNING_SECRET || undefined,
    usage: {
      monthlyTokenQuota: positive('DEFAULT_MONTHLY_TOKEN_QUOTA', e.DEFAULT_MONTHLY_TOKEN_QUOTA),
      thresholdShares: parseShares(e.USAGE_THRESHOLD_SHARES),
      ledgerSweepMs: positive('USAGE_LEDGER_SWEEP_MS', e.USAGE_LEDGER_SWEEP_MS),
    },
    secretsEncryptionKey: key,
    secretsEncryptionOldKeys: oldEncryptionKeys(e.SECRETS_ENCRYPTION_OLD_KEYS, key),
    eventRetentionMs: positive('EVENT_RETENTION', parseDuration(e.EVENT_RETENTION)),
  };
}
