import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fetchedLocalModel } from '@switchyard/content';
import { developmentSet } from './development';
import type { EvalSet } from './eval-set';
import { heldOutSet } from './held-out';
import {
  DEFAULT_MIN_SCORE,
  formatReport,
  formatSummary,
  meetsFloors,
  scoreOf,
  turnsPassed,
} from './report';
import { runSuite, type SuiteResult } from './suite';

/**
 * npm run eval:assistants -- [--model builtin,<registry model id>...] [--set development|held-out]
 * [--short] [--json FILE] [--failures] [--min-score 0.95] [--record]
 *
 * Runs the development set and the held-out set for each model and prints, per model, both
 * scores and the share of model-written replies the grounding check overruled. Without --model:
 * builtin, the local chat model when one is fetched, and a hosted model when OPENAI_API_KEY is set
 * (EVAL_HOSTED_MODEL, default gpt-4o-mini; OPENAI_BASE_URL for another OpenAI-compatible endpoint).
 * A registry in the environment (MODEL_REGISTRY_JSON / MODEL_REGISTRY_PATH / LOCAL_MODEL_PATH)
 * replaces the one built here. Exits 1 when a floor is missed: --min-score of the development
 * checks; always, on any set: no vendor-data leak, no escalated greeting. --record keeps each
 * model's figures in the console's EVALUATION_FILE, which the agent form shows beside the model choice.
 */
function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const HOSTED = process.env.EVAL_HOSTED_MODEL ?? 'gpt-4o-mini';

/** The models to evaluate: those named, else every one this machine can run. */
function modelsToRun(): string[] {
  const named = argument('model');
  if (named)
    return named
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
  const local = fetchedLocalModel(process.env);
  return ['builtin', ...(local ? [local.id] : []), ...(process.env.OPENAI_API_KEY ? [HOSTED] : [])];
}

/** The registry the mesh runs with: the environment's, else builtin, the fetched local model and the hosted one. */
function registryFor(models: string[]): NodeJS.ProcessEnv {
  const env = process.env;
  if (env.MODEL_REGISTRY_JSON || env.MODEL_REGISTRY_PATH || env.LOCAL_MODEL_PATH) return {};
  const entries: object[] = [{ id: 'builtin', provider: 'builtin' }];
  const local = fetchedLocalModel(env);
  if (local && models.includes(local.id))
    entries.push({ id: local.id, provider: 'llama-cpp', modelPath: local.path });
  if (env.OPENAI_API_KEY && models.includes(HOSTED))
    entries.push({
      id: HOSTED,
      provider: 'openai-compatible',
      baseUrl: env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
      apiKeyEnv: 'OPENAI_API_KEY',
    });
  return { MODEL_REGISTRY_JSON: JSON.stringify({ defaultModel: 'builtin', models: entries }) };
}

function setsToRun(): EvalSet[] {
  const named = argument('set');
  const sets = [developmentSet(), heldOutSet()];
  if (!named) return sets;
  const chosen = sets.filter((s) => s.name === named);
  if (chosen.length === 0) throw new Error(`--set must be development or held-out, not ${named}`);
  return chosen;
}

/** Where the console reads the last figures from (built into it). */
const EVALUATION_FILE = path.join(
  __dirname,
  '../../../../services/gateway/console/src/assistant-evaluation.json',
);

interface RecordedModel {
  development?: { score: number; turns: string };
  heldOut?: { score: number; turns: string };
  overruled?: string;
  short: boolean;
  measuredAt: string;
}

/** Keeps each model's last figures (other models' stay as they were). */
function record(results: SuiteResult[], short: boolean): void {
  const file = path.resolve(EVALUATION_FILE);
  const kept = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { models: Record<string, RecordedModel> })
    : { models: {} };
  const measuredAt = new Date().toISOString().slice(0, 10);
  for (const model of new Set(results.map((r) => r.model))) {
    const runs = results.filter((r) => r.model === model);
    const figures = (set: string) => {
      const r = runs.find((run) => run.set === set);
      return r && { score: Number(scoreOf(r).toFixed(3)), turns: `${turnsPassed(r)}/${r.turns}` };
    };
    const written = runs.reduce((n, r) => n + r.modelWritten, 0);
    const overruled = runs.reduce((n, r) => n + r.overruled, 0);
    kept.models[model] = {
      development: figures('development'),
      heldOut: figures('held-out'),
      ...(model === 'builtin' ? {} : { overruled: `${overruled}/${written}` }),
      short,
      measuredAt,
    };
  }
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
}

async function main(): Promise<void> {
  const models = modelsToRun();
  const short = process.argv.includes('--short');
  const failures = process.argv.includes('--failures');
  const minScore = Number(argument('min-score') ?? DEFAULT_MIN_SCORE);
  const env = registryFor(models);
  const results: SuiteResult[] = [];
  for (const set of setsToRun()) {
    for (const result of await runSuite({ set, models, short, env })) {
      results.push(result);
      process.stdout.write(`${formatReport(result, { short, failures })}\n\n`);
    }
  }
  process.stdout.write(`${formatSummary(results)}\n`);
  if (process.argv.includes('--record')) record(results, short);
  const json = argument('json');
  if (json) writeFileSync(json, JSON.stringify(results, null, 2));
  const floors = results.every((r) => meetsFloors(r, r.set === 'development' ? minScore : 0));
  if (!floors) process.exitCode = 1;
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
