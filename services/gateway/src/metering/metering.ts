import { AppError, estimateTokens, type CallContext, type Logger } from '@switchyard/shared';
import type { Middleware } from 'koa';
import type { GatewayState } from '../middleware/request-id';
import type { OrganizationDirectory } from './organization-directory';
import type { ApiKeyRecord } from '../store';
import type { Spent } from '../routes/types';
import type { BudgetGuard, BudgetHold, BudgetScope, Spend } from './budgets';
import type { ModelPrices } from './model-prices';
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
  /** The model the call names (undefined: the default model): its prices estimate the cost. */
  model?(body: B): string | undefined;
}

/** What metering reads of a billable call's result (a route's RouteResult carries these). */
export interface BilledOutcome {
  status: number;
  /** Tokens the call used, as the service that did the work reported them. */
  usage?: number;
  /** Streams: settles with the tokens used when the stream ends (undefined if it broke off). */
  finished?: Promise<number | undefined>;
  /** What the call spent (its cost for cost budgets; a stream's once it ended). */
  spent?: Spent | Promise<Spent | undefined>;
}

export interface MeteringDeps {
  directory: OrganizationDirectory;
  quota: QuotaGuard;
  budgets: BudgetGuard;
  /** The registry's prices: cost budgets reserve a call's estimated cost. */
  prices: ModelPrices;
  /** A key's team (its budget); undefined for a team deleted meanwhile. */
  teamOf?(organization: string, teamId: string): Promise<BudgetScope['team']>;
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
    const { input, output } = this.estimateParts(billing, body);
    // Counters reserve positive amounts: a call with nothing to count still holds one token.
    return Math.max(1, input + output);
  }

  private estimateParts<B>(billing: BillingSpec<B>, body: B): { input: number; output: number } {
    const { text, maxOutput, outputs } = billing.input(body);
    const output = (maxOutput ?? this.deps.defaultOutputTokens) * (outputs ?? 1);
    return { input: estimateTokens(text), output };
  }

  /** The estimate priced by the named model's (or the default model's) prices. */
  private async estimateCost<B>(billing: BillingSpec<B>, body: B): Promise<number> {
    const { input, output } = this.estimateParts(billing, body);
    const price = await this.deps.prices.priceOf(billing.model?.(body));
    return (input * price.inputPerMillion + output * price.outputPerMillion) / 1_000_000;
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
    const team = key?.teamId ? await this.deps.teamOf?.(key.organization, key.teamId) : undefined;
    const budget = await this.deps.budgets
      .reserve(
        { key, team, endUser: billing.endUser?.(body) },
        { tokens: estimate, cost: () => this.estimateCost(billing, body) },
      )
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
      void result.finished.then(async (tokens) =>
        tokens === undefined ? undefined : this.settleWith(hold, tokens, result.spent, call),
      );
      return;
    }
    await this.settleWith(hold, result.usage, result.spent, call);
  }

  private async settleWith(
    hold: Hold,
    tokens: number | undefined,
    spent: BilledOutcome['spent'],
    call: CallContext,
  ): Promise<void> {
    if (tokens === undefined) {
      this.deps.logger.warn(
        { requestId: call.requestId },
        'a billable response carried no usage; the estimate stays counted',
      );
      return;
    }
    // A call's own spend is at hand: no extra turn before the counters are written.
    const cost = spent instanceof Promise ? (await spent)?.cost : spent?.cost;
    await hold.settle({ tokens, cost });
  }
}

interface Hold {
  settle(spent: Spend): Promise<void>;
  release(): Promise<void>;
}

/** The quota's and the budgets' reservations settled and released together. */
function bothOf(quota: QuotaHold, budget: BudgetHold): Hold {
  return {
    settle: async (spent) => {
      await Promise.all([quota.settle(spent.tokens), budget.settle(spent)]);
    },
    release: async () => {
      await Promise.all([quota.release(), budget.release()]);
    },
  };
}
