import { AppError, estimateTokens, type CallContext, type Logger } from '@switchyard/shared';
import type { Middleware } from 'koa';
import type { GatewayState } from '../middleware/request-id';
import type { OrganizationDirectory } from './organization-directory';
import type { ApiKeyRecord } from '../store';
import type { BudgetGuard, BudgetHold } from './budgets';
import type { QuotaGuard, QuotaHold } from './quota';
import { rateLimited, rateLimitHeaders, type KeyRateLimits } from './rate-limits';
import type { RefusalCounts } from './refusals';

/** How a billable route is metered before the call: what it sends to a model. */
export interface BillingSpec<B> {
  /**
   * The text the model reads, the output cap the caller asked for (if any), and how many outputs
   * of that size it asked for (OpenAI's `n`; default 1).
   */
  input(body: B): { text: string; maxOutput?: number; outputs?: number };
  /** The end user the call is made for (`user` on /v1, `user_id` on the assistants): their budget applies. */
  endUser?(body: B): string | undefined;
}

/** What metering reads of a billable call's result (a route's RouteResult carries these). */
export interface BilledOutcome {
  status: number;
  /** Tokens the call used, as the service that did the work reported them. */
  usage?: number;
  /** Streams: settles with the tokens used when the stream ends (undefined if it broke off). */
  finished?: Promise<number | undefined>;
}

export interface MeteringDeps {
  directory: OrganizationDirectory;
  quota: QuotaGuard;
  budgets: BudgetGuard;
  rateLimits: KeyRateLimits;
  /** Output tokens assumed when a call gives no max_length. */
  defaultOutputTokens: number;
  logger: Logger;
  /** Counts every call refused here (429), by organization, day and reason, for the usage report. */
  refusals?: Pick<RefusalCounts, 'refused'>;
}

/** A billable call in progress: its reservation is settled when the result is known. */
export interface MeteredCall {
  estimate: number;
  /** The call failed before it produced a result: the reservation is given back. */
  failed(): Promise<void>;
  /**
   * Settles with the real usage (a stream: when it ends); 202 keeps the estimate (the call
   * completes elsewhere, later). Never rejects: a failed settlement is logged.
   */
  finished(result: BilledOutcome): Promise<void>;
}

/** Quotas and rate limits at the gateway, in front of the billable routes. */
export class Metering {
  constructor(private readonly deps: MeteringDeps) {}

  /** Estimated tokens: the input as the tokenizer estimates it (bounded time; exact for short text), plus the output cap (or the default budget). */
  estimate<B>(billing: BillingSpec<B>, body: B): number {
    const { text, maxOutput, outputs } = billing.input(body);
    const tokens =
      estimateTokens(text) + (maxOutput ?? this.deps.defaultOutputTokens) * (outputs ?? 1);
    // Counters reserve positive amounts: a call with nothing to count still holds one token.
    return Math.max(1, tokens);
  }

  /** Requests per minute per key, on every authenticated route; RateLimit-* headers on every answer. */
  requestLimit(): Middleware<GatewayState> {
    return async (ctx, next) => {
      const { organization, keyId } = ctx.state;
      if (!organization || !keyId) return next();
      const { rateLimits } = await this.deps.directory.policyOf(organization);
      const decision = await this.deps.rateLimits.hitRequest(keyId, rateLimits.requestsPerMinute);
      ctx.set(rateLimitHeaders(rateLimits.requestsPerMinute, decision));
      if (!decision.allowed) {
        this.deps.refusals?.refused(organization, 'request_rate');
        throw rateLimited('request', rateLimits.requestsPerMinute, decision);
      }
      await next();
    };
  }

  /**
   * Tokens per minute per key, the key's and its end user's budgets, then the monthly quota
   * reservation (429 when one refuses).
   */
  async begin<B>(
    billing: BillingSpec<B>,
    body: B,
    call: CallContext,
    key?: ApiKeyRecord,
  ): Promise<MeteredCall> {
    const estimate = this.estimate(billing, body);
    const policy = await this.deps.directory.policyOf(call.organization);
    const tokensPerMinute = policy.rateLimits.tokensPerMinute;
    const decision = await this.deps.rateLimits.hitTokens(call.keyId, tokensPerMinute, estimate);
    if (!decision.allowed) {
      this.deps.refusals?.refused(call.organization, 'token_rate');
      throw rateLimited('token', tokensPerMinute, decision);
    }
    const budget = await this.deps.budgets
      .reserve(key, billing.endUser?.(body), estimate)
      .catch((error) => {
        if (error instanceof AppError && error.code === 'budget_exceeded')
          this.deps.refusals?.refused(call.organization, 'budget');
        throw error;
      });
    const quota = await this.deps.quota
      .reserve(policy, estimate, call.requestId)
      .catch(async (error) => {
        await budget.release();
        if (error instanceof AppError && error.code === 'quota_exceeded')
          this.deps.refusals?.refused(call.organization, 'quota');
        throw error;
      });
    const hold = bothOf(quota, budget);
    return {
      estimate,
      failed: () => hold.release(),
      finished: (result) => this.settle(hold, result, call),
    };
  }

  private async settle(hold: Hold, result: BilledOutcome, call: CallContext): Promise<void> {
    if (result.status === 202) return; // async: the estimate stays counted (see docs/api.md, "Quotas")
    if (result.finished) {
      // A stream: settle from its done event; one that broke off after it started keeps the estimate.
      void result.finished.then((used) =>
        used === undefined ? undefined : this.settleWith(hold, used, call),
      );
      return;
    }
    await this.settleWith(hold, result.usage, call);
  }

  private async settleWith(hold: Hold, used: number | undefined, call: CallContext): Promise<void> {
    if (used === undefined) {
      this.deps.logger.warn(
        { requestId: call.requestId },
        'a billable response carried no usage; the estimate stays counted',
      );
      return;
    }
    await hold.settle(used);
  }
}

type Hold = Pick<QuotaHold, 'settle' | 'release'>;

/** The quota's and the budgets' reservations settled and released together. */
function bothOf(quota: QuotaHold, budget: BudgetHold): Hold {
  return {
    settle: async (tokens) => {
      await Promise.all([quota.settle(tokens), budget.settle(tokens)]);
    },
    release: async () => {
      await Promise.all([quota.release(), budget.release()]);
    },
  };
}
