import * as path from 'node:path';
import { createLogger, main, stopOnSignals } from '@switchyard/shared';
import { localEnv } from './local-env';
import { requireFreePorts } from './ports';
import { portsFromEnv, Stack } from './stack';

const logger = createLogger('stack');
const REPO = path.resolve(__dirname, '..', '..', '..', '..');
/** Generated values of a local run (git-ignored, like the infrastructure's run directory). */
const STACK_ENV_FILE = process.env.STACK_ENV_FILE ?? path.join(REPO, '.run', 'stack.env');

/** Shows enough of a secret to tell which one it is. */
function hint(value: string): string {
  return `${value.slice(0, 10)}...${value.slice(-4)}`;
}

/**
 * npm run start:stack: the five components as separate processes against real infrastructure,
 * supervised (a crashed component restarts with backoff). Ports come from GATEWAY_PORT and the
 * <SERVICE>_ADDR variables; what a local run needs and the shell does not set is generated once
 * into .run/stack.env.
 */
main(logger, async () => {
  const missing = ['KAFKA_BROKERS', 'MONGODB_URI', 'REDIS_URL'].filter(
    (name) => !process.env[name],
  );
  if (missing.length > 0) {
    throw new Error(
      `distributed mode needs ${missing.join(', ')}: eval "$(npm run -s infra -- env)" first (see docs/distributed.md)`,
    );
  }
  const local = localEnv(process.env, STACK_ENV_FILE);
  const env = local.env;
  const stack = new Stack({ env, ...portsFromEnv(env), supervise: { logger } });
  await requireFreePorts(stack.plannedPorts());
  stopOnSignals(logger, () => stack.stopAll());
  await stack.startAll();
  const where = (name: string) =>
    local.generated.includes(name)
      ? `generated, kept in ${local.file}`
      : local.fromFile.includes(name)
        ? `from ${local.file}`
        : 'from the environment';
  const lines = [
    `\nSwitchyard is running (distributed mode) at ${stack.gatewayUrl}`,
    `  API key (organization "dev"): ${env.DEV_API_KEY}   (${where('DEV_API_KEY')})`,
    `  Admin token (admin API and CLI): ${env.ADMIN_TOKEN}   (${where('ADMIN_TOKEN')})`,
    `  Webhook signing secret of "dev": ${hint(env.DEV_SIGNING_SECRET!)}   (DEV_SIGNING_SECRET, ${where('DEV_SIGNING_SECRET')})`,
    `  SECRETS_ENCRYPTION_KEY: ${where('SECRETS_ENCRYPTION_KEY')}`,
    '  Crashed components are restarted with backoff; Ctrl-C stops all of them.',
  ];
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
