import path from 'node:path';
import { Piscina } from 'piscina';
import { countTokens, rememberedTokens, rememberTokens } from './count';
import { EXACT_ESTIMATE_CHARS } from './estimate';

let pool: Piscina<string, number> | undefined;

/**
 * One worker, started on first use (loading the encoding takes a moment) and kept for a minute of
 * idleness; an idle piscina worker is unref'd, so it keeps no process alive.
 */
function tokenizerPool(): Piscina<string, number> {
  pool ??= new Piscina<string, number>({
    filename: path.join(__dirname, 'worker.js'),
    minThreads: 0,
    maxThreads: 1,
    idleTimeout: 60_000,
  });
  return pool;
}

/**
 * countTokens that never holds the event loop for long: a text over EXACT_ESTIMATE_CHARS is
 * counted in a worker thread, so other requests keep being served meanwhile.
 */
export async function countTokensOffThread(text: string): Promise<number> {
  if (text.length <= EXACT_ESTIMATE_CHARS) return countTokens(text);
  const known = rememberedTokens(text);
  if (known !== undefined) return known;
  const tokens = await tokenizerPool().run(text);
  rememberTokens(text, tokens);
  return tokens;
}
