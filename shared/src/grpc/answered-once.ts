import type { Logger } from 'pino';
import { usageEventId, type AnswerStore } from '../adapters/answer-store';
import { callKeyOf, type CallContext } from './context';

export interface AnsweredOnceOptions {
  store: AnswerStore;
  /** The idempotency window (IDEMPOTENCY_TTL_SECONDS, as at the gateway). */
  ttlSeconds: number;
  logger: Logger;
}

/** One call of a billable method: its key in the answer store and its usage event id. */
export interface OnceCall {
  key: string;
  usageEventId: string;
}

/**
 * Runs a billable call at most once per (organization, Idempotency-Key or request id, method):
 * a finished call's answer is kept, and a retry (its answer was lost on the way back) gets it
 * without running or billing again. If the answer store cannot be read the call runs (its usage
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
  const key = `${method}:${callKeyOf(context)}`;
  const kept = await store.get(context.organization, key).catch((error: unknown) => {
    logger.warn({ err: error, requestId: context.requestId }, 'answer store unreadable: the call runs (its usage is still counted once)');
    return undefined;
  });
  if (kept !== undefined) {
    logger.info({ requestId: context.requestId, method }, 'answered a retried call from its kept answer');
    return JSON.parse(kept) as R;
  }
  const answer = await run({ key, usageEventId: usageEventId(context.organization, key) });
  try {
    return JSON.parse(await store.put(context.organization, key, JSON.stringify(answer), ttlSeconds)) as R;
  } catch (error) {
    logger.warn({ err: error, requestId: context.requestId }, 'could not keep the answer of a finished call');
    return answer;
  }
}
