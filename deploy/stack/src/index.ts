import { randomBytes } from 'node:crypto';
import { createLogger, main, stopOnSignals } from '@switchyard/shared';
import { Stack } from './stack';

const logger = createLogger('stack');

/** npm run start:stack: the five components as separate processes against real infrastructure. */
main(logger, async () => {
  const missing = ['KAFKA_BROKERS', 'MONGODB_URI', 'REDIS_URL'].filter((name) => !process.env[name]);
  if (missing.length > 0) {
    throw new Error(`distributed mode needs ${missing.join(', ')} (see README, "Distributed mode")`);
  }
  const env: NodeJS.ProcessEnv = { ...process.env };
  const generated = !env.DEV_API_KEY;
  env.DEV_API_KEY ||= `sk_dev_${randomBytes(24).toString('base64url')}`;
  const generatedAdminToken = !env.ADMIN_TOKEN;
  env.ADMIN_TOKEN ||= `adm_${randomBytes(24).toString('base64url')}`;
  const stack = new Stack({ env, gatewayPort: Number(env.GATEWAY_PORT ?? 8080) });
  stopOnSignals(logger, () => stack.stopAll());
  await stack.startAll();
  const lines = [`\nSwitchyard is running (distributed mode) at ${stack.gatewayUrl}`];
  // Printed once for the operator who started it without DEV_API_KEY.
  if (generated) lines.push(`  API key (organization "dev"): ${env.DEV_API_KEY}`);
  if (generatedAdminToken) lines.push(`  Admin token (admin API and CLI): ${env.ADMIN_TOKEN}`);
  process.stdout.write(`${lines.join('\n')}\n\n`);
});
