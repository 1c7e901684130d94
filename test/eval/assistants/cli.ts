import { writeFileSync } from 'node:fs';
import { DEFAULT_MIN_SCORE, formatReport, meetsFloors } from './report';
import { runSuite } from './suite';

/**
 * npm run eval:assistants -- [--model builtin|<registry model id>] [--short] [--json FILE] [--failures]
 * [--min-score 0.95]. Prints the score per agent and per check kind; exits 1 when a floor is
 * missed (--min-score of the checks; always: no vendor-data leak, no escalated greeting).
 */
function argument(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

async function main(): Promise<void> {
  const model = argument('model') ?? 'builtin';
  const short = process.argv.includes('--short');
  const minScore = Number(argument('min-score') ?? DEFAULT_MIN_SCORE);
  const started = Date.now();
  const result = await runSuite({ model, short });
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
