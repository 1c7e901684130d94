import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import stableStringify from 'fast-json-stable-stringify';
import type { CallContext, Counters, Logger, UsagePublisher, UsageRoute } from '@switchyard/shared';
import type { OrganizationDirectory } from '../metering/organization-directory';
import { periodOf } from '../metering/period';
import type { RouteDeps, RouteInput, RouteResult, Spent } from '../routes/types';
import type { ResponseCacheStore } from '../store/response-cache/port';
import { cacheDirectivesOf, MAX_CACHE_AGE_SECONDS } from './cache-control';
import type { ModelNames } from './model-names';

/** Answers larger than this are not stored (nor collected from a stream). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Hit counts outlive their month long enough for a year's usage reports. */
const COUNT_TTL_SECONDS = 400 * 24 * 3600;

/** The response header saying whether the cache answered (absent when it was not in play). */
export const CACHE_HEADER = 'X-Switchyard-Cache';

/** How a route's calls are cached: which request fields change the answer, and its stored form. */
export interface CacheSpec<B> {
  /** Names the kind of answer in the request key (calls of two routes never share one). */
  kind: string;
  /** The usage route a billed hit is recorded under. */
  route: UsageRoute;
  /** The model named (empty: the default) and every other field that changes the answer. */
  request(body: B): { model: string; fields: Record<string, unknown> };
  /** Whether the call is answered at once (not, e.g., by a webhook later): only those are cached. */
  applies?(input: RouteInput<B, unknown>, deps: RouteDeps): boolean | Promise<boolean>;
  /** The stored form of a JSON answer. */
  answerOfBody(body: unknown): string | undefined;
  /** The stored form of a stream's events, once it finished; undefined when it holds no answer. */
  answerOfEvents(events: string): string | undefined;
  /** A hit: the stored answer as this request asks for it (JSON or a stream). */
  replay(answer: string, input: RouteInput<B, unknown>): RouteResult;
}

/** A call the cache is in play for: its hit, or how to keep its answer. */
export interface CacheLookup {
  hit?: RouteResult;
  /** The call's result with the miss header; its answer is stored once it is complete. */
  keep(result: RouteResult): RouteResult;
}

export interface CacheUsage {
  hits: number;
  /** Tokens (input + output) the replayed answers used when they were first made. */
  tokensSaved: number;
}

export interface ResponseCacheDeps {
  store: ResponseCacheStore;
  /** Whether an organization bills hits. */
  policies: Pick<OrganizationDirectory, 'policyOf'>;
  /** Where billed hits are recorded (none: they cannot be, and are logged). */
  usage?: UsagePublisher;
  models: ModelNames;
  /** Hits per organization and month (the usage report shows them). */
  counters: Counters;
  logger: Logger;
  now: () => number;
}

function countKeys(organization: string, period: string) {
  return {
    hits: `cache:hits:${organization}:${period}`,
    tokens: `cache:tokens:${organization}:${period}`,
  };
}

/**
 * The response cache: an answer is stored under a hash of the organization and the normalised
 * request (see docs/api.md, "Response cache") and replayed, with no model call and not billed, to
 * an equal request of the same organization asking for an answer at most max-age old.
 */
export class ResponseCache {
  constructor(private readonly deps: ResponseCacheDeps) {}

  /** Whether the key or the request asks for the cache (and the request does not refuse it). */
  asked(input: RouteInput<unknown, unknown>): boolean {
    if (input.cacheControl === undefined) return input.key?.cache !== undefined;
    const directives = cacheDirectivesOf(input.cacheControl);
    return (
      !directives.noStore && (directives.maxAge ?? input.key?.cache?.maxAgeSeconds) !== undefined
    );
  }

  /** Undefined when the cache is not in play for this call (not asked for, no-store, not cacheable). */
  async open<B>(
    spec: CacheSpec<B>,
    input: RouteInput<B, unknown>,
    routeDeps: RouteDeps,
  ): Promise<CacheLookup | undefined> {
    const directives = cacheDirectivesOf(input.cacheControl);
    if (directives.noStore) return undefined;
    const keyMaxAge = input.key?.cache?.maxAgeSeconds;
    const maxAge = directives.maxAge ?? keyMaxAge;
    if (maxAge === undefined) return undefined;
    if (spec.applies && !(await spec.applies(input, routeDeps))) return undefined;
    const { model, fields } = spec.request(input.body);
    const modelId = await this.deps.models.idOf(model);
    // A key limited to some models is not answered from another key's call to a model it may not use.
    if (!(await this.allowed(modelId, input.call.models))) return undefined;
    const key = requestKey(spec.kind, input.call.organization, modelId, fields);
    if (maxAge > 0 && !directives.noCache) {
      const found = await this.deps.store.get(key);
      const age = found && this.deps.now() - found.storedAt;
      if (found && age! >= 0 && age! <= maxAge * 1000) {
        await this.billed(spec, found.spent, input.call);
        this.counted(input.call, found.spent.tokensInput + found.spent.tokensOutput);
        const hit = spec.replay(found.answer, input);
        hit.headers = {
          ...hit.headers,
          [CACHE_HEADER]: 'hit',
          Age: String(Math.floor(age! / 1000)),
        };
        return { hit, keep: (result) => result };
      }
    }
    const ttl = Math.min(Math.max(maxAge, keyMaxAge ?? 0), MAX_CACHE_AGE_SECONDS);
    return {
      keep: (result) => {
        const marked = { ...result, headers: { ...result.headers, [CACHE_HEADER]: 'miss' } };
        if (result.status !== 200 || ttl <= 0) return marked;
        return this.kept(spec, key, ttl, marked, input.call);
      },
    };
  }

  /** The organization's hits in a period (YYYY-MM). */
  async usage(organization: string, period: string): Promise<CacheUsage> {
    const keys = countKeys(organization, period);
    const [hits, tokensSaved] = await Promise.all([
      this.deps.counters.get(keys.hits),
      this.deps.counters.get(keys.tokens),
    ]);
    return { hits, tokensSaved };
  }

  private async allowed(modelId: string, models: readonly string[] | undefined): Promise<boolean> {
    if (!models) return true;
    const ids = await Promise.all(models.map((name) => this.deps.models.idOf(name)));
    return ids.includes(modelId);
  }

  private kept<B>(
    spec: CacheSpec<B>,
    key: string,
    ttl: number,
    result: RouteResult,
    call: CallContext,
  ): RouteResult {
    const spent = Promise.resolve(result.spent);
    if (result.finished && result.body instanceof Readable) {
      return {
        ...result,
        body: this.collected(
          result.body,
          result.finished,
          (events) =>
            void spent.then((s) =>
              this.store(key, ttl, () => spec.answerOfEvents(events), s, call),
            ),
        ),
      };
    }
    void spent.then((s) => this.store(key, ttl, () => spec.answerOfBody(result.body), s, call));
    return result;
  }

  /**
   * The stream as it is, its text collected on the way: handed on once every byte went through
   * and the stream finished with its usage (one cancelled, broken off or failed is not).
   */
  private collected(
    body: Readable,
    finished: Promise<number | undefined>,
    complete: (events: string) => void,
  ): Readable {
    const parts: Buffer[] = [];
    let size = 0;
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size <= MAX_ANSWER_BYTES) parts.push(chunk);
        callback(null, chunk);
      },
      flush(callback) {
        callback();
        void finished.then((tokens) => {
          if (tokens !== undefined && size <= MAX_ANSWER_BYTES)
            complete(Buffer.concat(parts).toString('utf8'));
        });
      },
    });
    // Either side closing closes the other: a client gone cancels the call as before.
    pipeline(body, tap, () => undefined);
    return tap;
  }

  private store(
    key: string,
    ttl: number,
    answerOf: () => string | undefined,
    spent: Spent | undefined,
    call: CallContext,
  ): void {
    let answer: string | undefined;
    try {
      answer = answerOf();
    } catch (error) {
      this.deps.logger.warn({ err: error, requestId: call.requestId }, 'answer not cached');
      return;
    }
    if (answer === undefined || spent === undefined || answer.length > MAX_ANSWER_BYTES) return;
    void this.deps.store.set(key, { storedAt: this.deps.now(), answer, spent }, ttl);
  }

  /**
   * An organization that bills hits records the answer's usage as the call's own (route, model,
   * tokens, cost); the hit fails (503) rather than go unbilled when it cannot be recorded.
   */
  private async billed<B>(spec: CacheSpec<B>, spent: Spent, call: CallContext): Promise<void> {
    const policy = await this.deps.policies.policyOf(call.organization);
    if (!policy.cacheHitsBilled) return;
    if (!this.deps.usage) {
      this.deps.logger.error(
        { organization: call.organization, requestId: call.requestId, spent },
        'cache hit not billed: this gateway has no usage publisher',
      );
      return;
    }
    await this.deps.usage.record({
      organization: call.organization,
      keyId: call.keyId,
      requestId: call.requestId,
      route: spec.route,
      ...spent,
      outcome: 'succeeded',
    });
  }

  /** Counted for the usage report; a count that cannot be written is logged, the hit still served. */
  private counted(call: CallContext, tokens: number): void {
    const keys = countKeys(call.organization, periodOf(new Date(this.deps.now())).name);
    const { counters, logger } = this.deps;
    Promise.all([
      counters.incrementBy(keys.hits, 1, COUNT_TTL_SECONDS),
      counters.incrementBy(keys.tokens, tokens, COUNT_TTL_SECONDS),
    ]).catch((error: unknown) =>
      logger.warn(
        { err: error, organization: call.organization, requestId: call.requestId },
        'cache hit not counted',
      ),
    );
  }
}

/** The organization in clear (an operator can drop one's answers), the request as a SHA-256 hash. */
export function requestKey(
  kind: string,
  organization: string,
  modelId: string,
  fields: Record<string, unknown>,
): string {
  const hash = createHash('sha256')
    .update(`${kind}\n${modelId}\n${stableStringify(fields)}`)
    .digest('base64url');
  return `cache:${organization}:${hash}`;
}
