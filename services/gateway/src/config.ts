import {
  readInfraEnv,
  str,
  listenPort,
  num,
  bool,
  urlPolicyOptionsFromEnv,
  type InfraEnv,
  type UrlPolicyOptions,
} from '@switchyard/shared';

export interface GatewayConfig extends InfraEnv {
  host: string;
  port: number;
  contentAddr: string;
  assistantAddr: string;
  recommendationAddr: string;
  notificationAddr: string;
  grpcDeadlineMs: number;
  bodyLimitBytes: number;
  /** The whole request (headers and body) must arrive within this; a body shorter than its Content-Length gets 408. */
  requestTimeoutMs: number;
  /** The request line and headers must arrive within this (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** An idle kept-alive connection is closed after this; longer than a load balancer's idle timeout, so it closes first. */
  keepAliveTimeoutMs: number;
  /** When set, a key of organization "dev" (never logged). */
  devApiKey?: string;
  /** Monthly token quota of the dev organization when the gateway creates it. */
  devMonthlyTokenQuota: number;
  /** Whether the dev organization's quota refuses calls (true) or only notifies (false). */
  devHardQuota: boolean;
  /** Guards /api/v2/admin/...; unset = the admin API refuses everything (never logged). */
  adminToken?: string;
  /** Rate limits of organizations created without their own. */
  defaultRequestsPerMinute: number;
  defaultTokensPerMinute: number;
  /** How long a key lookup is cached per replica: revocations are seen within it. */
  keyCacheTtlMs: number;
  /** Output tokens assumed for a quota reservation when a call gives no max_length. */
  defaultOutputTokens: number;
  /** Quota counters and rate limits are shared through Redis when set ('' keeps them per process). */
  redisUrl: string;
  /** How long a response stays replayable under its Idempotency-Key. */
  idempotencyTtlSeconds: number;
  /** Lease of an Idempotency-Key in flight: a retry takes the key over this long after its owner died. */
  idempotencyLeaseMs: number;
  /** Requests one key may have in progress at once on this gateway replica. */
  keyMaxConcurrentRequests: number;
  /** Bounds of the in-memory response cache (without Redis; Redis's maxmemory bounds its own). */
  responseCacheMaxEntries: number;
  responseCacheMaxBytes: number;
  /** Where a webhookUrl may point: checked when a call is accepted (notification checks again at send). */
  urlPolicy: UrlPolicyOptions;
}

/** Keys are "sk_" plus at least 16 url-safe characters. */
export const API_KEY_PATTERN = /^sk_[A-Za-z0-9_-]{16,}$/;

interface GatewayEnv {
  GATEWAY_HOST: string;
  GATEWAY_PORT: number;
  CONTENT_ADDR: string;
  ASSISTANT_ADDR: string;
  RECOMMENDATION_ADDR: string;
  NOTIFICATION_ADDR: string;
  GRPC_DEADLINE_MS: number;
  BODY_LIMIT_BYTES: number;
  GATEWAY_REQUEST_TIMEOUT_MS: number;
  GATEWAY_HEADERS_TIMEOUT_MS: number;
  GATEWAY_KEEP_ALIVE_TIMEOUT_MS: number;
  DEV_API_KEY: string;
  DEV_MONTHLY_TOKEN_QUOTA: number;
  DEV_HARD_QUOTA: boolean;
  ADMIN_TOKEN: string;
  DEFAULT_RPM: number;
  DEFAULT_TPM: number;
  KEY_CACHE_TTL_MS: number;
  DEFAULT_OUTPUT_TOKENS: number;
  REDIS_URL: string;
  IDEMPOTENCY_TTL_SECONDS: number;
  IDEMPOTENCY_LEASE_MS: number;
  KEY_MAX_CONCURRENT_REQUESTS: number;
  RESPONSE_CACHE_MAX_ENTRIES: number;
  RESPONSE_CACHE_MAX_BYTES: number;
}

/** Admin tokens are long enough not to be guessed (the value itself is never echoed). */
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/**
 * Requests one key may have in progress on one replica. Streams hold their slot for the whole
 * answer (seconds), so the limit is set above what a key within the default per-minute limit can
 * have open (600 calls a minute of up to about 50 s each), while bounding what one key can take of
 * a replica (a stream in flight costs the gateway tens of KiB).
 */
export const DEFAULT_KEY_MAX_CONCURRENT_REQUESTS = 512;
export const DEFAULT_RESPONSE_CACHE_MAX_ENTRIES = 10_000;
export const DEFAULT_RESPONSE_CACHE_MAX_BYTES = 64 * 1024 * 1024;

function positiveInteger(name: string, value: number, problems: string[]): void {
  if (!(Number.isSafeInteger(value) && value > 0)) problems.push(`${name}: must be an integer > 0`);
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  const { infra, values: e } = readInfraEnv<GatewayEnv>(
    { database: 'switchyard_gateway' },
    {
      GATEWAY_HOST: str({ default: '0.0.0.0' }),
      GATEWAY_PORT: listenPort({ default: 8080 }),
      CONTENT_ADDR: str({ default: '127.0.0.1:50051' }),
      ASSISTANT_ADDR: str({ default: '127.0.0.1:50052' }),
      RECOMMENDATION_ADDR: str({ default: '127.0.0.1:50053' }),
      NOTIFICATION_ADDR: str({ default: '127.0.0.1:50054' }),
      GRPC_DEADLINE_MS: num({ default: 30_000 }),
      BODY_LIMIT_BYTES: num({ default: 1_048_576 }),
      GATEWAY_REQUEST_TIMEOUT_MS: num({ default: 30_000 }),
      GATEWAY_HEADERS_TIMEOUT_MS: num({ default: 15_000 }),
      GATEWAY_KEEP_ALIVE_TIMEOUT_MS: num({ default: 65_000 }),
      DEV_API_KEY: str({ default: '' }),
      DEV_MONTHLY_TOKEN_QUOTA: num({ default: 1_000_000 }),
      DEV_HARD_QUOTA: bool({ default: true }),
      ADMIN_TOKEN: str({ default: '' }),
      DEFAULT_RPM: num({ default: 600 }),
      DEFAULT_TPM: num({ default: 200_000 }),
      KEY_CACHE_TTL_MS: num({ default: 2000 }),
      DEFAULT_OUTPUT_TOKENS: num({ default: 256 }),
      REDIS_URL: str({ default: '' }),
      IDEMPOTENCY_TTL_SECONDS: num({ default: 86_400 }),
      IDEMPOTENCY_LEASE_MS: num({ default: 3000 }),
      KEY_MAX_CONCURRENT_REQUESTS: num({ default: DEFAULT_KEY_MAX_CONCURRENT_REQUESTS }),
      RESPONSE_CACHE_MAX_ENTRIES: num({ default: DEFAULT_RESPONSE_CACHE_MAX_ENTRIES }),
      RESPONSE_CACHE_MAX_BYTES: num({ default: DEFAULT_RESPONSE_CACHE_MAX_BYTES }),
    },
    env,
  );
  const problems: string[] = [];
  if (!(e.GRPC_DEADLINE_MS > 0)) problems.push('GRPC_DEADLINE_MS: must be > 0');
  if (!(Number.isInteger(e.BODY_LIMIT_BYTES) && e.BODY_LIMIT_BYTES > 0))
    problems.push('BODY_LIMIT_BYTES: must be an integer > 0');
  positiveInteger('GATEWAY_REQUEST_TIMEOUT_MS', e.GATEWAY_REQUEST_TIMEOUT_MS, problems);
  positiveInteger('GATEWAY_HEADERS_TIMEOUT_MS', e.GATEWAY_HEADERS_TIMEOUT_MS, problems);
  positiveInteger('GATEWAY_KEEP_ALIVE_TIMEOUT_MS', e.GATEWAY_KEEP_ALIVE_TIMEOUT_MS, problems);
  // Node refuses to start a server whose headers timeout exceeds its request timeout.
  if (e.GATEWAY_HEADERS_TIMEOUT_MS > e.GATEWAY_REQUEST_TIMEOUT_MS)
    problems.push('GATEWAY_HEADERS_TIMEOUT_MS: must not exceed GATEWAY_REQUEST_TIMEOUT_MS');
  // The value itself is never echoed: it is a credential.
  if (e.DEV_API_KEY && !API_KEY_PATTERN.test(e.DEV_API_KEY))
    problems.push('DEV_API_KEY: must look like sk_<16+ url-safe chars>');
  if (e.ADMIN_TOKEN && e.ADMIN_TOKEN.length < MIN_ADMIN_TOKEN_LENGTH)
    problems.push(`ADMIN_TOKEN: must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  positiveInteger('DEV_MONTHLY_TOKEN_QUOTA', e.DEV_MONTHLY_TOKEN_QUOTA, problems);
  positiveInteger('DEFAULT_RPM', e.DEFAULT_RPM, problems);
  positiveInteger('DEFAULT_TPM', e.DEFAULT_TPM, problems);
  positiveInteger('DEFAULT_OUTPUT_TOKENS', e.DEFAULT_OUTPUT_TOKENS, problems);
  positiveInteger('IDEMPOTENCY_TTL_SECONDS', e.IDEMPOTENCY_TTL_SECONDS, problems);
  if (!Number.isInteger(e.IDEMPOTENCY_LEASE_MS) || e.IDEMPOTENCY_LEASE_MS < 300)
    problems.push('IDEMPOTENCY_LEASE_MS: must be an integer >= 300');
  positiveInteger('KEY_MAX_CONCURRENT_REQUESTS', e.KEY_MAX_CONCURRENT_REQUESTS, problems);
  positiveInteger('RESPONSE_CACHE_MAX_ENTRIES', e.RESPONSE_CACHE_MAX_ENTRIES, problems);
  positiveInteger('RESPONSE_CACHE_MAX_BYTES', e.RESPONSE_CACHE_MAX_BYTES, problems);
  if (!(Number.isSafeInteger(e.KEY_CACHE_TTL_MS) && e.KEY_CACHE_TTL_MS >= 0))
    problems.push('KEY_CACHE_TTL_MS: must be an integer >= 0');
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    ...infra,
    host: e.GATEWAY_HOST,
    port: e.GATEWAY_PORT,
    contentAddr: e.CONTENT_ADDR,
    assistantAddr: e.ASSISTANT_ADDR,
    recommendationAddr: e.RECOMMENDATION_ADDR,
    notificationAddr: e.NOTIFICATION_ADDR,
    grpcDeadlineMs: e.GRPC_DEADLINE_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    requestTimeoutMs: e.GATEWAY_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.GATEWAY_HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: e.GATEWAY_KEEP_ALIVE_TIMEOUT_MS,
    devApiKey: e.DEV_API_KEY || undefined,
    devMonthlyTokenQuota: e.DEV_MONTHLY_TOKEN_QUOTA,
    devHardQuota: e.DEV_HARD_QUOTA,
    adminToken: e.ADMIN_TOKEN || undefined,
    defaultRequestsPerMinute: e.DEFAULT_RPM,
    defaultTokensPerMinute: e.DEFAULT_TPM,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    defaultOutputTokens: e.DEFAULT_OUTPUT_TOKENS,
    redisUrl: e.REDIS_URL.trim(),
    idempotencyTtlSeconds: e.IDEMPOTENCY_TTL_SECONDS,
    idempotencyLeaseMs: e.IDEMPOTENCY_LEASE_MS,
    keyMaxConcurrentRequests: e.KEY_MAX_CONCURRENT_REQUESTS,
    responseCacheMaxEntries: e.RESPONSE_CACHE_MAX_ENTRIES,
    responseCacheMaxBytes: e.RESPONSE_CACHE_MAX_BYTES,
    urlPolicy: urlPolicyOptionsFromEnv(env),
  };
}
