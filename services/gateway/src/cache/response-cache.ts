import { createHash } from 'node:crypto';
import { pipeline, Readable, Transform } from 'node:stream';
import stableStringify from 'fast-json-stable-stringify';
import type { CallContext, Counters, Logger, UsagePublisher, UsageRoute } from '@switchyard/shared';
import type { OrganizationDirectory } from '../read-models/organization-directory';
import { periodOf } from '../metering/period';
import type { RouteInput, RouteResult } from '../route-io';
import type { CachedAnswer, ResponseCacheStore, Spent } from '../store/response-cache/port';
import { cacheDirectivesOf, MAX_CACHE_AGE_SECONDS } from './cache-control';
import type { ModelCatalog } from '../metering/model-catalog';

/** Answers larger than this are not stored (nor collected from a stream). */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Hit counts outlive their month long enough for a year's usage reports. */
const COUNT_TTL_SECONDS = 400 * 24 * 3600;

/** The response header saying whether the cache answered (absent when it was not in play). */
export const CACHE_HEADER = 'X-Switchyard-Cache';

/** How a route's calls are cached: which request fields change the answer, and its stored form. */
export interface CacheSpec<B, D = unknown> {
  /** Names the kind of answer in the request key (calls of two routes never share one). */
  kind: string;
  /** The usage route a billed hit is recorded under. */
  route: UsageRoute;
  /** The model named (empty: the default) and every other field that changes the answer. */
  request(body: B): { model: string; fields: Record<string, unknown> };
  /** Whether the call is answered at once (not, e.g., by a webhook later): only those are cached. */
  applies?(input: RouteInput<B, unknown>, deps: D): boolean | Promise<boolean>;
  /** The stored form of a JSON answer. */
  answerOfBody(body: unknown): string | undefined;
  /** The stored form of a stream's events, once it finished; undefined when it holds no answer. */
  answerOfEvents(events: string, spent: Spent): string | undefined;
  /**
   * The semantic form: the text compared by meaning (a chat's last user message, a prompt) and
   * every other field, which must be equal; undefined when the request has no such text.
   */
  semantic?(body: B): { text: string; fields: Record<string, unknown> } | undefined;
  /** A hit: the stored answer as this request asks for it (JSON or a stream). */
  replay(answer: string, input: RouteInput<B, unknown>): RouteResult;
}

/** The response header giving a semantic hit's similarity (absent on exact hits). */
export const SIMILARITY_HEADER = 'X-Switchyard-Cache-Similarity';

/** A stored answer found for a request; semantic hits say how similar the request was. */
interface Found {
  answer: CachedAnswer;
  similarity?: number;
}

/** A request of a key with a semantic threshold: where its vector is kept, and the vector (made once). */
interface SemanticRequest {
  partition: string;
  threshold: number;
  vector(): Promise<Float32Array | undefined>;
}

/** Cosine similarity (the embeddings model's vectors are normalised; this does not rely on it). */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    normA += a[i]! * a[i]!;
    normB += b[i]! * b[i]!;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
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
  /** The registry's model names: a request naming a model by an alias shares its id's answers. */
  models: Pick<ModelCatalog, 'idOf'>;
  /** Hits per organization and month (the usage report shows them). */
  counters: Counters;
  /** The semantic form's vectors (the registry's embeddings model); undefined when unavailable. */
  embed?(text: string, call: CallContext): Promise<Float32Array | undefined>;
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
  async open<B, D>(
    spec: CacheSpec<B, D>,
    input: RouteInput<B, unknown>,
    routeDeps: D,
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
    const semantic = this.semanticOf(spec, input, modelId);
    if (maxAge > 0 && !directives.noCache) {
      const found = (await this.exact(key, maxAge)) ?? (await this.similar(semantic, maxAge));
      if (found) return { hit: await this.replayed(spec, input, found), keep: (result) => result };
    }
    const ttl = Math.min(Math.max(maxAge, keyMaxAge ?? 0), MAX_CACHE_AGE_SECONDS);
    return {
      keep: (result) => {
        const marked = { ...result, headers: { ...result.headers, [CACHE_HEADER]: 'miss' } };
        if (result.status !== 200 || ttl <= 0) return marked;
        return this.kept(spec, { key, ttl, semantic }, marked, input.call);
      },
    };
  }

  private async exact(key: string, maxAge: number): Promise<Found | undefined> {
    const found = await this.deps.store.get(key);
    return found && this.fresh(found, maxAge) ? { answer: found } : undefined;
  }

  private fresh(found: CachedAnswer, maxAge: number): boolean {
    const age = this.deps.now() - found.storedAt;
    return age >= 0 && age <= maxAge * 1000;
  }

  /**
   * The semantic form (a key's cache.semanticThreshold): the request's text as a vector, compared
   * with those of the stored requests equal to it but for that text; the most similar one at or
   * over the threshold whose answer is still fresh.
   */
  private async similar(
    semantic: SemanticRequest | undefined,
    maxAge: number,
  ): Promise<Found | undefined> {
    if (!semantic) return undefined;
    const vector = await semantic.vector();
    if (!vector) return undefined;
    const candidates = (await this.deps.store.vectors(semantic.partition))
      .map((entry) => ({ key: entry.key, similarity: cosine(vector, entry.vector) }))
      .filter((candidate) => candidate.similarity >= semantic.threshold)
      .sort((a, b) => b.similarity - a.similarity);
    for (const candidate of candidates.slice(0, 3)) {
      const found = await this.deps.store.get(candidate.key);
      if (found && this.fresh(found, maxAge))
        return { answer: found, similarity: candidate.similarity };
    }
    return undefined;
  }

  private semanticOf<B>(
    spec: CacheSpec<B>,
    input: RouteInput<B, unknown>,
    modelId: string,
  ): SemanticRequest | undefined {
    const threshold = input.key?.cache?.semanticThreshold;
    const parts = threshold !== undefined && spec.semantic?.(input.body);
    if (!parts || !this.deps.embed) return undefined;
    const { embed, logger } = this.deps;
    let vector: Promise<Float32Array | undefined> | undefined;
    // No vector (no embeddings model, or it failed): exact matches only, never a failed call.
    const embedded = () =>
      embed(parts.text, input.call).catch((error: unknown) => {
        logger.debug({ err: error, requestId: input.call.requestId }, 'request not embedded');
        return undefined;
      });
    return {
      partition: requestKey(
        `${spec.kind}:semantic`,
        input.call.organization,
        modelId,
        parts.fields,
      ),
      threshold,
      vector: () => (vector ??= embedded()),
    };
  }

  private async replayed<B>(
    spec: CacheSpec<B>,
    input: RouteInput<B, unknown>,
    { answer, similarity }: Found,
  ): Promise<RouteResult> {
    await this.billed(spec, answer.spent, input.call);
    this.counted(input.call, answer.spent.tokensInput + answer.spent.tokensOutput);
    const hit = spec.replay(answer.answer, input);
    hit.headers = {
      ...hit.headers,
      [CACHE_HEADER]: 'hit',
      Age: String(Math.floor((this.deps.now() - answer.storedAt) / 1000)),
      ...(similarity === undefined ? {} : { [SIMILARITY_HEADER]: similarity.toFixed(4) }),
    };
    return hit;
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
    entry: { key: string; ttl: number; semantic?: SemanticRequest },
    result: RouteResult,
    call: CallContext,
  ): RouteResult {
    const spent = Promise.resolve(result.spent);
    const store = (answerOf: (spent: Spent) => string | undefined) =>
      void spent.then((s) => this.store(entry, answerOf, s, call));
    if (result.finished && result.body instanceof Readable) {
      return {
        ...result,
        body: this.collected(result.body, result.finished, (events) =>
          store((spent) => spec.answerOfEvents(events, spent)),
        ),
      };
    }
    store(() => spec.answerOfBody(result.body));
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
    { key, ttl, semantic }: { key: string; ttl: number; semantic?: SemanticRequest },
    answerOf: (spent: Spent) => string | undefined,
    spent: Spent | undefined,
    call: CallContext,
  ): void {
    // A call that reported nothing spent is not stored: its hits could not be billed.
    if (spent === undefined) return;
    let answer: string | undefined;
    try {
      answer = answerOf(spent);
    } catch (error) {
      this.deps.logger.warn({ err: error, requestId: call.requestId }, 'answer not cached');
      return;
    }
    if (answer === undefined || answer.length > MAX_ANSWER_BYTES) return;
    const { store, now } = this.deps;
    void store.set(key, { storedAt: now(), answer, spent }, ttl).then(async () => {
      const vector = await semantic?.vector();
      if (semantic && vector) await store.addVector(semantic.partition, { key, vector }, ttl);
    });
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
