import type { Logger } from 'pino';
import { usageEventId, type AnswerStore } from '../adapters/answer-store';
import { callKeyOf, type CallContext } from './context';

export interface AnsweredOnceOptions {
  store: AnswerStore;
  /** The idempotency window (IDEMPOTENCY_TTL_SECONDS, as at the gateway). */
  ttlSeconds: number;
  logger: Logger;
}

/** One call of a billable method: its usage event id (undefined: the call has no key, a random id is used). */
export interface OnceCall {
  usageEventId?: string;
}

/** The answer-store key of a call of a method, and its deterministic usage event id; undefined without a call key. */
export function onceKeyOf(
  context: CallContext,
  method: string,
): { key: string; usageEventId: string } | undefined {
  const callKey = callKeyOf(context);
  if (callKey === undefined) return undefined;
  const key = `${method}:${callKey}`;
  return { key, usageEventId: usageEventId(context.organization, key) };
}

/**
 * Runs a billable call at most once per (organization, Idempotency-Key, method): a finished
 * call's answer is kept, and a retry (its answer was lost on the way back) gets it without
 * running or billing again. If the answer store cannot be read the call runs (its usage
 * event id is deterministic, so the ledger still counts it once); if the answer cannot be kept,
 * the caller gets it anyway.
 */
export async function answeredOnce<R>(
  options: AnsweredOnceOptions,
  context: CallContext,
  method: string,
  run: (call: OnceCall) => Promise<R>,
): Promise<R> {
  const { store, ttlSeconds, logger } = options;
  const once = onceKeyOf(context, method);
  // Without an Idempotency-Key no retry can name this call again (the gateway gives every request a
  // fresh id), so nothing is kept; its usage event id is still derived from the request id.
  if (once === undefined || !context.idempotencyKey)
    return run({ usageEventId: once?.usageEventId });
  const { key } = once;
  const kept = await store.get(context.organization, key).catch((error: unknown) => {
    logger.warn(
      { err: error, requestId: context.requestId },
      'answer store unreadable: the call runs (its usage is still counted once)',
    );
    return undefined;
  });
  if (kept !== undefined) {
    logger.info(
      { requestId: context.requestId, method },
      'answered a retried call from its kept answer',
    );
    return JSON.parse(kept) as R;
  }
  const answer = await run({ usageEventId: once.usageEventId });
  try {
    return JSON.parse(
      await store.put(context.organization, key, JSON.stringify(answer), ttlSeconds),
    ) as R;
  } catch (error) {
    logger.warn(
      { err: error, requestId: context.requestId },
      'could not keep the answer of a finished call',
    );
    return answer;
  }
}
