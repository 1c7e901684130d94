import {
  AppError,
  attributionOf,
  answeredOnce,
  onceKeyOf,
  usageEventId,
  type CallContext,
  type OnceCall,
  type UsageFact,
  type UsagePublisher,
  type UsageRoute,
} from '@switchyard/shared';
import { costOf, type TextModel, type TextResult } from '../models/text-model';
import type { Routed } from '../models/routing';
import { spentOf } from '../models/usage';
import { recordModelCall } from '../models/model-metrics';
import type { ModelDeps } from './deps';

/** Errors that reject the request before any model work; no usage is recorded for them. */
const REJECTIONS = new Set([
  'invalid_request',
  'unsupported',
  'payload_too_large',
  'model_not_allowed',
]);

export function isRejection(error: unknown): boolean {
  return error instanceof AppError && REJECTIONS.has(error.code) && !spentOf(error);
}

export interface ModelCall<R extends TextResult> {
  context: CallContext;
  requestId: string;
  route: UsageRoute;
  /** The requested model: recorded when no model answered or spent tokens. */
  model: TextModel;
  run: () => Promise<Routed<R>>;
  /**
   * Deterministic per (organization, call key), so a call run twice is counted once by the ledger;
   * a failed attempt's event is per attempt (failedAttemptEventId).
   */
  usageEventId?: string;
  /** Record the usage without holding up the answer (the /v1 path; see recordInBackground). */
  inBackground?: boolean;
}

function recordUsage<R extends TextResult>(
  usage: UsagePublisher,
  call: ModelCall<R>,
  spent: Pick<UsageFact, 'model' | 'tokensInput' | 'tokensOutput' | 'cost' | 'outcome'>,
  eventId = call.usageEventId,
): Promise<void> {
  const fact: UsageFact = {
    organization: call.context.organization,
    keyId: call.context.keyId,
    ...attributionOf(call.context),
    requestId: call.requestId,
    route: call.route,
    ...spent,
    eventId,
  };
  if (!call.inBackground) return usage.record(fact);
  usage.recordInBackground(fact);
  return Promise.resolve();
}

export type Answered<R extends TextResult> = R & { cost: number; model: TextModel };

/**
 * Runs one model operation and publishes exactly one usage.recorded for it before returning:
 * succeeded with the answering model's tokens, or failed with the tokens spent before failing
 * (by the last model that spent any).
 */
export async function callWithUsage<R extends TextResult>(
  usage: UsagePublisher,
  call: ModelCall<R>,
): Promise<Answered<R>> {
  let routed: Routed<R>;
  const startedAt = performance.now();
  const seconds = () => (performance.now() - startedAt) / 1000;
  try {
    routed = await call.run();
  } catch (error) {
    if (!isRejection(error)) {
      const spent = spentOf(error);
      const model = spent?.model ?? call.model.info;
      const tokensInput = spent?.tokensInput ?? 0;
      const tokensOutput = spent?.tokensOutput ?? 0;
      recordModelCall({
        model: model.id,
        route: call.route,
        seconds: seconds(),
        tokensInput,
        tokensOutput,
        error,
      });
      await recordUsage(
        usage,
        call,
        {
          model: model.id,
          tokensInput,
          tokensOutput,
          cost: costOf(model, tokensInput, tokensOutput),
          outcome: 'failed',
        },
        failedAttemptEventId(call),
      ).catch(() => undefined);
    }
    throw error;
  }
  const { model, result } = routed;
  recordModelCall({
    model: model.info.id,
    route: call.route,
    seconds: seconds(),
    tokensInput: result.tokensInput,
    tokensOutput: result.tokensOutput,
  });
  const cost = costOf(model.info, result.tokensInput, result.tokensOutput);
  await recordUsage(usage, call, {
    model: model.info.id,
    tokensInput: result.tokensInput,
    tokensOutput: result.tokensOutput,
    cost,
    outcome: 'succeeded',
  });
  return { ...result, cost, model };
}

/**
 * A failed attempt's usage event has an id of its own attempt (its request id): a retry that then
 * succeeds publishes the call's deterministic id, which the ledger must not find taken by the
 * failure (a gateway killed mid-call cancels the first attempt; the retry's tokens would be lost).
 * A failure published twice (the same attempt) still counts once.
 */
function failedAttemptEventId<R extends TextResult>(call: ModelCall<R>): string | undefined {
  if (call.usageEventId === undefined) return undefined;
  return usageEventId(call.context.organization, `failed:${call.requestId}`);
}

/** The usage block of a response. */
export function usageMessage(answered: {
  model: TextModel;
  tokensInput: number;
  tokensOutput: number;
  cost: number;
}) {
  return {
    model: answered.model.info.id,
    tokens_input: answered.tokensInput,
    tokens_output: answered.tokensOutput,
    cost: answered.cost,
  };
}

/**
 * A billable RPC run at most once per call key (Idempotency-Key or request id): a retry after a
 * lost answer gets the kept answer (see answeredOnce). Without an answer store it just runs, still
 * with its deterministic usage event id.
 */
export function billableOnce<R>(
  deps: ModelDeps,
  context: CallContext,
  method: string,
  run: (call: OnceCall) => Promise<R>,
): Promise<R> {
  if (deps.answers) return answeredOnce(deps.answers, context, method, run);
  return run({ usageEventId: onceKeyOf(context, method)?.usageEventId });
}
