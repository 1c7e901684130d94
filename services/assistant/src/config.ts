import { num, listenPort, readEnv, str } from '@switchyard/shared';

export interface AssistantConfig {
  grpcHost: string;
  /** 0 picks a free port (tests). */
  grpcPort: number;
  /** Messages kept per session; older ones drop off. */
  sessionHistoryLimit: number;
  logLevel: string;
}

const MIN_HISTORY = 2;

interface AssistantEnv {
  GRPC_HOST: string;
  GRPC_PORT: number;
  SESSION_HISTORY_LIMIT: number;
  LOG_LEVEL: string;
}

/** Reads the assistant's environment; throws listing every invalid variable. */
export function loadAssistantConfig(env: NodeJS.ProcessEnv = process.env): AssistantConfig {
  // readEnv's declared return type resolves to never (shared bug, reported); the values are AssistantEnv.
  const values = readEnv<AssistantEnv>(
    {
      GRPC_HOST: str({ default: '0.0.0.0' }),
      GRPC_PORT: listenPort({ default: 50052 }),
      SESSION_HISTORY_LIMIT: num({ default: 50 }),
      LOG_LEVEL: str({ default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
    },
    env,
  ) as unknown as AssistantEnv;
  const limit = values.SESSION_HISTORY_LIMIT;
  if (!Number.isInteger(limit) || limit < MIN_HISTORY) {
    throw new Error(`invalid configuration:\n  SESSION_HISTORY_LIMIT: must be an integer >= ${MIN_HISTORY}`);
  }
  return { grpcHost: values.GRPC_HOST, grpcPort: values.GRPC_PORT, sessionHistoryLimit: limit, logLevel: values.LOG_LEVEL };
}
