import { writeFileSync } from 'node:fs';
import { fetchedLocalModel } from '@switchyard/content';
import { DEFAULT_MIN_SCORE, formatReport, meetsFloors } from './report';
import { runSuite } from './suite';

/**
 * npm run eval:assistants -- [--model builtin|<registry model id>] [--short] [--json FILE] [--failures]
 * [--min-score 0.95]. Prints the score per agent and per check kind; exits 1 when a floor is
 * missed (--min-score of the checks; always: no vendor-data leak, no escalated greeting).
 * The model comes from the registry the environment configures (MODEL_REGISTRY_JSON /
 * MODEL_REGISTRY_PATH / LOCAL_MODEL_PATH), or is the local model `npm run model:fetch` fetched.
 */
function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

/** Without a configured registry, --model naming the fetched local model loads it from the cache. */
function registryFor(model: string): NodeJS.ProcessEnv {
  const env = process.env;
  if (env.MODEL_REGISTRY_JSON || env.MODEL_REGISTRY_PATH || env.LOCAL_MODEL_PATH) return {};
  const fetched = fetchedLocalModel(env);
  return fetched?.id === model
    ? { LOCAL_MODEL_PATH: fetched.path, LOCAL_MODEL_ID: fetched.id }
    : {};
}

async function main(): Promise<void> {
  const model = argument('model') ?? 'builtin';
  const short = process.argv.includes('--short');
  const minScore = Number(argument('min-score') ?? DEFAULT_MIN_SCORE);
  const started = Date.now();
  const result = await runSuite({ model, short, env: registryFor(model) });
  const report = formatReport(result, {
    model,
    short,
    seconds: (Date.now() - started) / 1000,
    failures: process.argv.includes('--failures'),
  });
  process.stdout.write(`${report}\n`);
  const json = argument('json');
  if (json) writeFileSync(json, JSON.stringify(result, null, 2));
  if (!meetsFloors(result, minScore)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
