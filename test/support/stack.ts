import { createServer } from 'node:net';
import { Stack, type StackOptions } from '@switchyard/stack';
import { uniqueName } from '@switchyard/shared/testing';
import { callApi, type ApiOptions, type ApiResponse } from './http';

export const STACK_API_KEY = 'sk_stack_0123456789abcdefghijkl';
export const STACK_SIGNING_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

/** Whether a process of this id is running (signal 0 checks without sending anything). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function realInfrastructure(): boolean {
  return Boolean(process.env.KAFKA_BROKERS && process.env.MONGODB_URI && process.env.REDIS_URL);
}

/** Binds the port (0: any) for a moment: the port, or undefined when it is taken. */
async function freePort(wanted = 0): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error),
    );
    server.listen(wanted, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Ports free right now (a stack binds them soon after). */
export async function freePorts(count: number): Promise<number[]> {
  return (await Promise.all(Array.from({ length: count }, () => freePort()))) as number[];
}

/**
 * The first of count consecutive ports free right now: a stack's METRICS_PORT (its services
 * take that port and the next ones, notification the first).
 */
export async function freePortRun(count: number): Promise<number> {
  for (let tries = 0; tries < 20; tries++) {
    const [base] = await freePorts(1);
    const next = Array.from({ length: count - 1 }, (_, i) => base! + 1 + i);
    if (
      next.every((port) => port <= 65535) &&
      (await Promise.all(next.map(freePort))).every(Boolean)
    )
      return base!;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

export interface RunningStack {
  stack: Stack;
  api<T = any>(path: string, options?: ApiOptions): Promise<ApiResponse<T>>;
  topicPrefix: string;
  log: string[];
}

/**
 * The distributed mesh (separate processes on real Kafka, MongoDB and Redis) with its own topics
 * and databases, so a run never sees another run's data.
 */
export async function startStack(
  extraEnv: NodeJS.ProcessEnv = {},
  options: Pick<StackOptions, 'gatewayUpstreams' | 'supervise' | 'notificationReplicas'> & {
    ports?: number[];
  } = {},
): Promise<RunningStack> {
  const topicPrefix = `${uniqueName('e2e')}.`;
  const log: string[] = [];
  const replicas = options.notificationReplicas ?? 1;
  const ports = options.ports ?? (await freePorts(4 + replicas));
  const stack = new Stack({
    env: {
      ...process.env,
      KAFKA_TOPIC_PREFIX: topicPrefix,
      DEV_API_KEY: STACK_API_KEY,
      DEV_SIGNING_SECRET: STACK_SIGNING_SECRET,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_RETRY_SCHEDULE: '0,200ms,200ms,200ms,200ms',
      WEBHOOK_SWEEP_INTERVAL_MS: '100',
      SECRETS_ENCRYPTION_KEY: 'MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      METRICS_PORT: '0',
      // The proofs make thousands of calls with one key in a few minutes.
      DEFAULT_RPM: '1000000',
      DEFAULT_TPM: '1000000000',
      LOG_LEVEL: process.env.STACK_LOG_LEVEL ?? 'warn',
      ...extraEnv,
    },
    databasePrefix: uniqueName('e2e'),
    gatewayUpstreams: options.gatewayUpstreams,
    supervise: options.supervise,
    gatewayPort: ports[0],
    servicePorts: {
      content: ports[1],
      assistant: ports[2],
      recommendation: ports[3],
      notification: ports[4],
      ...Object.fromEntries(
        Array.from({ length: replicas - 1 }, (_, i) => [`notification-${i + 2}`, ports[5 + i]]),
      ),
    },
    notificationReplicas: replicas,
    output: (component, line) => {
      log.push(`[${component}] ${line}`);
      if (process.env.STACK_LOG_LEVEL) process.stderr.write(`[${component}] ${line}\n`);
    },
  });
  await stack.startAll().catch((error: unknown) => {
    // The components' lines are printed only with STACK_LOG_LEVEL; a failed start shows its tail.
    if (!process.env.STACK_LOG_LEVEL) process.stderr.write(`${log.slice(-40).join('\n')}\n`);
    throw error;
  });
  return {
    stack,
    topicPrefix,
    log,
    api: (path, options) => callApi(stack.gatewayUrl, STACK_API_KEY, path, options),
  };
}
