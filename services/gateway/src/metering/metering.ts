import {
  estimateTokens,
  type CallContext,
  type Logger,
  type SharedState,
} from '@switchyard/shared';
import type { Context, Middleware } from 'koa';
import type { GatewayState } from '../middleware/request-id';
import type { OrganizationDirectory } from '../read-models/organization-directory';
import type { ApiKeyRecord } from '../store';
import type { Spent } from '../store/response-cache/port';
import type { BudgetGuard, BudgetReservation, BudgetScope, Spend } from './budgets';
import type { ModelCatalog } from './model-catalog';
import type { QuotaCounter, QuotaGuard } from './quota';
import type { CounterSettlements } from './settlements';
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
  /** Where a call's rate limits, budgets and quota are counted together (one script on Redis). */
  state: Pick<SharedState, 'admit'>;
  /** Where reservations are settled and given back, batched. */
  settlements: CounterSettlements;
  quota: QuotaGuard;
  budgets: BudgetGuard;
  /** The registry's prices: cost budgets reserve a call's estimated cost. */
  prices: Pick<ModelCatalog, 'priceOf'>;
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

/**
 * A billed request's per-minute request hit, not counted yet: the call's admission counts it
 * (and hands over its RateLimit-* headers), or it is counted alone (a cached answer, a request
 * refused before it was admitted).
 */
export interface DueRequestHit {
  /** Counts it alone (once); 429 when refused. */
  alone(): Promise<void>;
  /** Takes it into the admission (once): undefined when it was counted already. */
  take(): ((headers: Record<string, string>) => void) | undefined;
}

export interface DueState {
  requestHit?: DueRequestHit;
}

/** A call's tokens before it runs: the input as counted, the output at its cap, their sum to reserve. */
interface EstimatedTokens {
  input: number;
  output: number;
  tokens: number;
}

/** What a call reserved: each counter, the amount, how it settles. */
interface Reserved {
  quota?: QuotaCounter;
  budgets: BudgetReservation[];
  estimate: { tokens: number; cost: number };
}

/**
 * Rate limits, budgets and the monthly quota at the gateway, in front of the billable routes.
 * A billed call's state is one round trip: its request and token hits and its reservations on
 * every budget and on the quota in one admission script (SharedState.admit); settlements and
 * releases go batched (CounterSettlements), after the answer.
 */
export class Metering {
  constructor(private readonly deps: MeteringDeps) {}

  /** Estimated tokens: the input as the tokenizer estimates it (bounded time; exact for short text), plus the output cap (or the default budget). */
  estimate<B>(billing: BillingSpec<B>, body: B): number {
    return this.estimateParts(billing, body).tokens;
  }

  private estimateParts<B>(billing: BillingSpec<B>, body: B): EstimatedTokens {
    const { text, maxOutput, outputs } = billing.input(body);
    const input = estimateTokens(text);
    const output = (maxOutput ?? this.deps.defaultOutputTokens) * (outputs ?? 1);
    // Counters reserve positive amounts: a call with nothing to count still holds one token.
    return { input, output, tokens: Math.max(1, input + output) };
  }

  /** The estimate priced by the named model's (or the default model's) prices. */
  private async estimateCost<B>(billing: BillingSpec<B>, estimate: EstimatedTokens, body: B) {
    const price = await this.deps.prices.priceOf(billing.model?.(body));
    return (
      (estimate.input * price.inputPerMillion + estimate.output * price.outputPerMillion) /
      1_000_000
    );
  }

  /** Requests per minute per key, on every authenticated route; RateLimit-* headers on every answer. */
  requestLimit(): Middleware<GatewayState> {
    return async (ctx, next) => {
      const { organization, keyId } = ctx.state;
      if (!organization || !keyId) return next();
      await this.hitRequest(ctx, organization, keyId);
      await next();
    };
  }

  /**
   * The request limit of a billed route: left to the call's admission (one round trip with its
   * reservations; see requestHitOf); a request that fails before it (a bad body) or is answered
   * without a call is counted alone, so every request still counts once.
   */
  deferredRequestLimit(): Middleware<GatewayState & DueState> {
    return async (ctx, next) => {
      const { organization, keyId } = ctx.state;
      if (!organization || !keyId) return next();
      let due = true;
      const alone = async () => {
        if (!due) return;
        due = false;
        await this.hitRequest(ctx, organization, keyId);
      };
      ctx.state.requestHit = {
        alone,
        take: () => {
          if (!due) return undefined;
          due = false;
          return (headers) => ctx.set(headers);
        },
      };
      try {
        await next();
      } catch (error) {
        await alone();
        throw error;
      }
    };
  }

  private async hitRequest(ctx: Context, organization: string, keyId: string): Promise<void> {
    const { rateLimits } = await this.deps.directory.policyOf(organization);
    const limit = rateLimits.requestsPerMinute;
    const decision = await this.deps.rateLimits.hitRequest(organization, keyId, limit);
    ctx.set(rateLimitHeaders(limit, decision));
    if (!decision.allowed) {
      this.deps.refusals?.refused(organization, 'request_rate');
      throw rateLimited('request', limit, decision);
    }
  }

  /**
   * The call's admission, one script: its request hit (when due), tokens per minute, the key's,
   * team's and end user's budgets, then the monthly quota reservation (429 naming the first that
   * refuses).
   */
  async begin<B>(
    billing: BillingSpec<B>,
    body: B,
    call: CallContext,
    key?: ApiKeyRecord,
    requestHit?: DueRequestHit,
  ): Promise<MeteredCall> {
    const { organization, keyId } = call;
    const parts = this.estimateParts(billing, body);
    const estimate = parts.tokens;
    const policy = await this.deps.directory.policyOf(organization);
    const team = key?.teamId ? await this.deps.teamOf?.(key.organization, key.teamId) : undefined;
    const refs = this.deps.budgets.refsOf({ key, team, endUser: billing.endUser?.(body) });
    const cost = refs.some((ref) => ref.metric === 'cost')
      ? await this.estimateCost(billing, parts, body)
      : 0;
    // Nothing to reserve (a free model's cost): counters take positive amounts only.
    const budgets = this.deps.budgets
      .reservations(refs, estimate, cost)
      .filter((reservation) => reservation.amount > 0);
    const quota = await this.deps.quota.counterOf(policy);
    const { requestsPerMinute, tokensPerMinute } = policy.rateLimits;
    const setHeaders = requestHit?.take();
    let hits = [
      ...(setHeaders
        ? [this.deps.rateLimits.requestHit(organization, keyId, requestsPerMinute)]
        : []),
      this.deps.rateLimits.tokensHit(organization, keyId, tokensPerMinute, estimate),
    ];
    const reservations = [
      // Never created by a reservation: a missing one is rebuilt from the ledger first.
      ...budgets.map(({ ref, amount, ttl }) => ({
        key: ref.key,
        amount,
        limit: ref.limit,
        ttlSeconds: ttl,
        onlyIfExists: true,
      })),
      ...(quota
        ? [
            {
              key: quota.key,
              amount: estimate,
              limit: quota.limit,
              ttlSeconds: quota.ttl,
              onlyIfExists: true,
            },
          ]
        : []),
    ];
    const since = Date.now();
    for (;;) {
      const admitted = await this.deps.state.admit({ hits, reservations });
      for (const [index, decision] of admitted.hits.entries()) {
        const request = setHeaders !== undefined && index === 0;
        if (request) setHeaders(rateLimitHeaders(requestsPerMinute, decision));
        if (decision.allowed) continue;
        this.deps.refusals?.refused(organization, request ? 'request_rate' : 'token_rate');
        throw request
          ? rateLimited('request', requestsPerMinute, decision)
          : rateLimited('token', tokensPerMinute, decision);
      }
      const refused = admitted.reservations.findIndex(
        (r, i) =>
          !r.granted && (r.missing || r.total + reservations[i]!.amount > reservations[i]!.limit),
      );
      if (refused === -1) {
        budgets.forEach(({ ref, amount }, i) => {
          const { total } = admitted.reservations[i]!;
          this.deps.budgets.counted(ref, total - amount, total);
        });
        if (quota) this.deps.quota.keep(quota, estimate, call.requestId);
        return this.metered({ quota, budgets, estimate: { tokens: estimate, cost } }, call);
      }
      const { total, missing } = admitted.reservations[refused]!;
      if (refused < budgets.length && missing) {
        // A budget counter was lost (a new period, Redis wiped): rebuilt, then again.
        await this.deps.budgets.rebuild(budgets[refused]!, since);
        hits = [];
        continue;
      }
      if (refused < budgets.length) {
        this.deps.refusals?.refused(organization, 'budget');
        throw this.deps.budgets.refused(budgets[refused]!.ref, total);
      }
      if (!missing) {
        this.deps.refusals?.refused(organization, 'quota');
        throw this.deps.quota.refused(quota!, total);
      }
      // The quota counter was lost (a new month, Redis wiped): rebuilt, then the reservations
      // again (the hits are counted already).
      await this.deps.quota.rebuild(quota!, since);
      hits = [];
    }
  }

  private metered(reserved: Reserved, call: CallContext): MeteredCall {
    let done = false;
    const once = async (work: () => Promise<void>) => {
      if (done) return;
      done = true;
      await work();
    };
    return {
      estimate: reserved.estimate.tokens,
      failed: () => once(() => this.release(reserved)),
      finished: (result) =>
        this.settle(result, call, (spent) => once(() => this.settleWith(reserved, spent, call))),
    };
  }

  private async settle(
    result: BilledOutcome,
    call: CallContext,
    settleWith: (spent: Spend) => Promise<void>,
  ): Promise<void> {
    if (result.status === 202) return; // async: the estimate stays counted (see docs/api.md, "Quotas")
    if (result.finished) {
      // A stream: settle from its done event; one that broke off after it started keeps the estimate.
      void result.finished.then(async (tokens) =>
        tokens === undefined ? undefined : this.withSpend(tokens, result.spent, call, settleWith),
      );
      return;
    }
    await this.withSpend(result.usage, result.spent, call, settleWith);
  }

  private async withSpend(
    tokens: number | undefined,
    spent: BilledOutcome['spent'],
    call: CallContext,
    settleWith: (spent: Spend) => Promise<void>,
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
    await settleWith({ tokens, cost });
  }

  /** Each counter moves by real - reserved, in this replica's next settlement write. */
  private async settleWith(reserved: Reserved, spent: Spend, call: CallContext): Promise<void> {
    const { quota, budgets, estimate } = reserved;
    const budgetDeltas = budgets.map((b) => this.deps.budgets.settlement(b, spent, estimate));
    const quotaDelta = Math.round(spent.tokens) - estimate.tokens;
    if (quota) this.deps.quota.keep(quota, quotaDelta, call.requestId);
    const moves = await this.deps.settlements.add([
      ...budgets.map(({ ref, ttl }, i) => ({
        key: ref.key,
        amount: budgetDeltas[i]!,
        ttlSeconds: ttl,
      })),
      // Not created if lost meanwhile: the rebuild reads this settlement from the tallies.
      ...(quota
        ? [{ key: quota.key, amount: quotaDelta, ttlSeconds: quota.ttl, onlyIfExists: true }]
        : []),
    ]);
    budgets.forEach(({ ref }, i) => {
      const move = moves[i];
      if (move && budgetDeltas[i]! > 0) this.deps.budgets.counted(ref, move.before, move.after);
    });
  }

  /** Every reservation given back. */
  private async release(reserved: Reserved): Promise<void> {
    const { quota, budgets, estimate } = reserved;
    if (quota) this.deps.quota.keep(quota, -estimate.tokens, '');
    await this.deps.settlements.add([
      ...budgets.map(({ ref, amount }) => ({ key: ref.key, amount: -amount })),
      ...(quota ? [{ key: quota.key, amount: -estimate.tokens }] : []),
    ]);
  }
}
