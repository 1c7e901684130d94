import { AppError, type CallContext } from '@switchyard/shared';
import { costOf, type TextModel, type TextResult } from '../models/text-model';
import type { UsagePublisher } from '../events/usage-publisher';

/** Errors that reject the request before any model work; no usage is recorded for them. */
const REJECTIONS = new Set(['invalid_request', 'unsupported', 'payload_too_large']);

export function isRejection(error: unknown): boolean {
  return error instanceof AppError && REJECTIONS.has(error.code);
}

export interface ModelCall<R extends TextResult> {
  context: CallContext;
  requestId: string;
  endpoint: string;
  model: TextModel;
  run: () => Promise<R>;
}

/**
 * Runs one model operation and publishes exactly one usage.recorded for it before returning:
 * succeeded with the token counts, or failed when the model failed after being called.
 */
export async function callWithUsage<R extends TextResult>(usage: UsagePublisher, call: ModelCall<R>): Promise<R & { cost: number }> {
  const base = { requestId: call.requestId, keyId: call.context.keyId, endpoint: call.endpoint, model: call.model.info.id };
  let result: R;
  try {
    result = await call.run();
  } catch (error) {
    if (!isRejection(error)) {
      await usage.record(call.context.organization, { ...base, tokensInput: 0, tokensOutput: 0, cost: 0, outcome: 'failed' }).catch(() => undefined);
    }
    throw error;
  }
  const cost = costOf(call.model.info, result.tokensInput, result.tokensOutput);
  await usage.record(call.context.organization, {
    ...base,
    tokensInput: result.tokensInput,
    tokensOutput: result.tokensOutput,
    cost,
    outcome: 'succeeded',
  });
  return { ...result, cost };
}
