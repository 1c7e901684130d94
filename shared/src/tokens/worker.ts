import { countTokens } from './count';

/** Runs in a worker thread (see count-off-thread.ts). */
export default function count(text: string): number {
  return countTokens(text);
}
