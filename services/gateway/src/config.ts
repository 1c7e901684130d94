import { readEnv, str, listenPort, num } from '@switchyard/shared';

export interface GatewayConfig {
  host: string;
  port: number;
  contentAddr: string;
  assistantAddr: string;
  recommendationAddr: string;
  notificationAddr: string;
  grpcDeadlineMs: number;
  bodyLimitBytes: number;
  /** When set, a key of organization "dev" (never logged). */
  devApiKey?: string;
  logLevel: string;
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
  DEV_API_KEY: string;
  LOG_LEVEL: string;
}

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  // readEnv's declared return type (CleanedEnv<values>) collapses to never; the runtime value is
  // the cleaned variables, so it is read through GatewayEnv (reported for shared/).
  const e = readEnv<GatewayEnv>(
    {
      GATEWAY_HOST: str({ default: '0.0.0.0' }),
      GATEWAY_PORT: listenPort({ default: 8080 }),
      CONTENT_ADDR: str({ default: '127.0.0.1:50051' }),
      ASSISTANT_ADDR: str({ default: '127.0.0.1:50052' }),
      RECOMMENDATION_ADDR: str({ default: '127.0.0.1:50053' }),
      NOTIFICATION_ADDR: str({ default: '127.0.0.1:50054' }),
      GRPC_DEADLINE_MS: num({ default: 30_000 }),
      BODY_LIMIT_BYTES: num({ default: 1_048_576 }),
      DEV_API_KEY: str({ default: '' }),
      LOG_LEVEL: str({ default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
    },
    env,
  ) as unknown as GatewayEnv;
  const problems: string[] = [];
  if (!(e.GRPC_DEADLINE_MS > 0)) problems.push('GRPC_DEADLINE_MS: must be > 0');
  if (!(Number.isInteger(e.BODY_LIMIT_BYTES) && e.BODY_LIMIT_BYTES > 0)) problems.push('BODY_LIMIT_BYTES: must be an integer > 0');
  // The value itself is never echoed: it is a credential.
  if (e.DEV_API_KEY && !API_KEY_PATTERN.test(e.DEV_API_KEY)) problems.push('DEV_API_KEY: must look like sk_<16+ url-safe chars>');
  if (problems.length > 0) throw new Error(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return {
    host: e.GATEWAY_HOST,
    port: e.GATEWAY_PORT,
    contentAddr: e.CONTENT_ADDR,
    assistantAddr: e.ASSISTANT_ADDR,
    recommendationAddr: e.RECOMMENDATION_ADDR,
    notificationAddr: e.NOTIFICATION_ADDR,
    grpcDeadlineMs: e.GRPC_DEADLINE_MS,
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    devApiKey: e.DEV_API_KEY || undefined,
    logLevel: e.LOG_LEVEL,
  };
}
