import { AppError } from '@switchyard/shared';
import { spentOf, withSpent } from './usage';
import type { Capability, DeltaSink, TextModel, TextResult } from './text-model';
import { traceModelCall } from './model-span';

/** Failures of a provider (after its retries) that the next model in the chain may cure. */
const UPSTREAM_FAILURES = new Set(['upstream_error', 'timeout']);

export interface Routed<R> {
  /** The model that answered. */
  model: TextModel;
  result: R;
}

/**
 * Runs the operation on each model (each attempt a span) of the chain until one answers. Only upstream failures move
 * on (and only while mayFallBack allows: a stream that already sent text cannot). The last error
 * is thrown, carrying the tokens of the last model that spent any.
 */
export async function routeWithFallback<R>(
  operation: Capability,
  chain: TextModel[],
  run: (model: TextModel) => Promise<R>,
  mayFallBack: () => boolean = () => true,
): Promise<Routed<R>> {
  let lastError: unknown;
  let lastSpent = undefined as ReturnType<typeof spentOf>;
  for (const model of chain) {
    try {
      return { model, result: await traceModelCall(operation, model, () => run(model)) };
    } catch (error) {
      lastError = error;
      lastSpent = spentOf(error) ?? lastSpent;
      const upstream = error instanceof AppError && UPSTREAM_FAILURES.has(error.code);
      if (!upstream || !mayFallBack()) break;
    }
  }
  if (lastError instanceof Error && lastSpent && !spentOf(lastError))
    withSpent(lastError, lastSpent);
  throw lastError;
}

/** Word-sized pieces (each word with the space after it), for models that cannot stream. */
export function wordDeltas(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

/** Streams a finished result in word-sized deltas. */
export async function streamResult(result: TextResult, onDelta: DeltaSink): Promise<TextResult> {
  for (const delta of wordDeltas(result.text)) await onDelta(delta);
  return result;
}
