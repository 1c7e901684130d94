import { silentLogger } from '@switchyard/shared/testing';
import { startEmbeddedMesh, type EmbeddedMesh } from '@switchyard/embedded';

let running: Promise<EmbeddedMesh> | undefined;

/** Embedded-mode tests run in memory even when the run has real infrastructure (test/distributed uses it). */
function withoutInfrastructure(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { KAFKA_BROKERS: _k, MONGODB_URI: _m, REDIS_URL: _r, ...rest } = env;
  return rest;
}

/** Env the end-to-end mesh runs with: short retry schedule so retry tests take milliseconds. */
export const E2E_ENV: NodeJS.ProcessEnv = {
  ...withoutInfrastructure(process.env),
  GATEWAY_PORT: '0',
  DEV_API_KEY: 'sk_e2e_0123456789abcdefghijklmnop',
  DEV_SIGNING_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  WEBHOOK_RETRY_SCHEDULE: '0,100ms,100ms,100ms',
  WEBHOOK_SWEEP_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  DEFAULT_MONTHLY_TOKEN_QUOTA: '1000000',
  LOG_LEVEL: 'silent',
  DEMO_DATA: 'false',
  DEFAULT_RPM: '1000000',
  DEFAULT_TPM: '1000000000',
};

/** One embedded mesh per test run, started on first use and stopped by the root hook. */
export function mesh(): Promise<EmbeddedMesh> {
  running ??= startEmbeddedMesh(E2E_ENV, silentLogger());
  return running;
}

export async function stopMesh(): Promise<void> {
  if (!running) return;
  const started = await running;
  running = undefined;
  await started.stop();
}
