import type { Context, Middleware, Next } from 'koa';
import { AppError, type IdempotencyKeys, type Locks, type Logger } from '@switchyard/shared';
import type { BodyState } from '../middleware/body';
import { problemOf, writeError } from '../middleware/errors';
import { IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, idempotencyKeyOf } from './header';
import {
  captureResponse,
  decodeRecord,
  encodeRecord,
  fingerprintOf,
  isStorable,
  recordKey,
  writeStoredResponse,
  type IdempotencyRecord,
} from './records';

export interface IdempotencyGuardDeps {
  state: { locks: Locks; idempotencyKeys: IdempotencyKeys };
  /** How long a stored answer is replayed (IDEMPOTENCY_TTL_SECONDS). */
  ttlSeconds: number;
  /**
   * The attempt's lease on its key (IDEMPOTENCY_LEASE_MS): renewed every third of it while the
   * attempt runs, so it expires this long after its owner died, and a retry takes over then.
   */
  leaseMs: number;
  /** How long a "pending" record lives (it only tells a retry that an attempt started). */
  pendingTtlMs: number;
  logger: Logger;
}

type Ctx = Context & { state: BodyState };

/** The attempt with a key: its record name and fingerprint, its lease, the fields never stored. */
interface Attempt {
  name: string;
  fingerprint: string;
  lease: Lease;
  credentialFields: string[];
}

/** An attempt's hold on its key while it runs: renewed in the background until stopped. */
interface Lease {
  /** Another attempt may own the key now (a renewal found it gone, or none succeeded for a whole lease). */
  lost(): boolean;
  stop(): void;
}

/** Tries a few times: a concurrent replay holds the lock only for two shared-state round trips. */
const LOCK_ATTEMPTS = 3;
const LOCK_RETRY_MS = 25;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function inFlight(): AppError {
  return new AppError(
    'conflict',
    `a request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed; retry later`,
    [],
    1,
  );
}

function mismatch(): AppError {
  return new AppError('conflict', `${IDEMPOTENCY_KEY_HEADER} was used with a different request`, [
    {
      field: IDEMPOTENCY_KEY_HEADER,
      reason: 'a request with another method, path or body was sent with this key',
    },
  ]);
}

function streamRefused(): AppError {
  const reason = 'streamed responses are not replayable';
  return AppError.invalid(
    `${IDEMPOTENCY_KEY_HEADER} cannot be used with stream: true`,
    IDEMPOTENCY_KEY_HEADER,
    reason,
  );
}

/** Whose keys these are: an organization's, or the admin API's (admin routes have no organization). */
function scopeOf(state: BodyState): string | undefined {
  if (state.organization) return `org:${state.organization}`;
  return state.admin ? 'admin' : undefined;
}

function wantsStream(body: unknown): boolean {
  return (
    typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true
  );
}

/**
 * Idempotency-Key on the routes flagged `idempotent`, as Stripe's: the first request with a key
 * runs under a lease and its answer is stored; a retry with the same request gets that answer back
 * (no downstream call, no rate limit, no quota); a different request with the key, or one while
 * the first still runs, is 409. The lease is held by a live owner only: renewed while the attempt
 * runs, it expires within IDEMPOTENCY_LEASE_MS of the owner's death (a gateway killed mid-call),
 * and the next retry takes the key over and runs the request again. Downstream, the service that
 * did the work answers that retry from its kept answer without billing again (answered-once.ts),
 * or does the work if it was not done.
 */
export class IdempotencyGuard {
  constructor(private readonly deps: IdempotencyGuardDeps) {}

  /**
   * Without the header: `limit` then `body`, as on any route. With it: the body first (the
   * fingerprint needs it), then the key check, and `limit` only for a request that really runs, so
   * a replay is not charged a second time.
   */
  middleware(limit: Middleware, body: Middleware, credentialFields: string[] = []): Middleware {
    return async (ctx: Ctx, next: Next) => {
      const key = idempotencyKeyOf(ctx.req.headers);
      const scope = key === undefined ? undefined : scopeOf(ctx.state);
      if (key === undefined || scope === undefined) return limit(ctx, () => body(ctx, next));
      ctx.set(IDEMPOTENCY_KEY_HEADER, key);
      await body(ctx, () =>
        this.guarded(ctx, recordKey(scope, key), credentialFields, () => limit(ctx, next)),
      );
    };
  }

  private async guarded(
    ctx: Ctx,
    name: string,
    credentialFields: string[],
    run: () => Promise<void>,
  ): Promise<void> {
    if (wantsStream(ctx.state.body)) throw streamRefused();
    const fingerprint = fingerprintOf(ctx.method, ctx.url, ctx.state.rawBody ?? '');
    const token = await this.acquire(name);
    if (token === undefined) throw inFlight();
    const lease = this.renew(name, token);
    try {
      const existing = await this.claim(name, fingerprint);
      if (existing && this.answerExisting(ctx, existing, fingerprint)) return;
      await this.runAndStore(ctx, { name, fingerprint, lease, credentialFields }, run);
    } finally {
      lease.stop();
      await this.release(name, token);
    }
  }

  private async acquire(name: string): Promise<string | undefined> {
    for (let attempt = 1; ; attempt++) {
      const token = await this.deps.state.locks.acquire(name, this.deps.leaseMs);
      if (token !== undefined || attempt === LOCK_ATTEMPTS) return token;
      await sleep(LOCK_RETRY_MS);
    }
  }

  /**
   * Renews the lease every third of its length while the attempt runs. A renewal that finds the
   * lease gone, or no renewal succeeding for a whole lease (shared state unreachable), means
   * another attempt may own the key: this one then leaves the key alone when it ends.
   */
  private renew(name: string, token: string): Lease {
    const { leaseMs } = this.deps;
    let renewedAt = Date.now();
    let gone = false;
    let renewing = false;
    const timer = setInterval(
      () => {
        if (renewing || gone) return;
        renewing = true;
        this.deps.state.locks
          .extend(name, token, leaseMs)
          .then(
            (held) => {
              if (held) renewedAt = Date.now();
              else gone = true;
            },
            () => undefined, // unreachable now; lost() counts the time since the last renewal
          )
          .finally(() => (renewing = false));
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    timer.unref();
    return {
      lost: () => gone || Date.now() - renewedAt >= leaseMs,
      stop: () => clearInterval(timer),
    };
  }

  /**
   * Under the lock: reads the record, or (none yet) writes "pending". IdempotencyKeys has no plain
   * read; set-if-absent is the read, and "pending" is what a lock holder's key looks like anyway.
   */
  private async claim(name: string, fingerprint: string): Promise<IdempotencyRecord | undefined> {
    const pending = encodeRecord({ state: 'pending', fingerprint });
    const existing = await this.deps.state.idempotencyKeys.remember(
      name,
      pending,
      Math.ceil(this.deps.pendingTtlMs / 1000),
    );
    return existing === undefined ? undefined : decodeRecord(existing);
  }

  /**
   * Answers from the record (true), or returns false when this attempt should run: the record is
   * "pending" while we hold the lease, so the attempt that wrote it stopped renewing its lease (its
   * gateway died) without an answer, and this one takes over.
   */
  private answerExisting(ctx: Ctx, record: IdempotencyRecord, fingerprint: string): boolean {
    if (record.fingerprint !== fingerprint) throw mismatch();
    if (record.state === 'pending') {
      this.deps.logger.info(
        { requestId: ctx.state.requestId, route: ctx.state.route },
        'taking over an idempotent request whose attempt ended without an answer',
      );
      return false;
    }
    writeStoredResponse(ctx, record.response);
    ctx.set(REPLAYED_HEADER, 'true');
    this.deps.logger.debug(
      { requestId: ctx.state.requestId, replayOf: record.response.requestId },
      'idempotent replay',
    );
    return true;
  }

  /**
   * Runs the route and renders its failure here (as errorHandler would), so 4xx answers are stored
   * like successes; 5xx and 429 are not: the key is forgotten and a retry runs anew.
   */
  private async runAndStore(ctx: Ctx, attempt: Attempt, run: () => Promise<void>): Promise<void> {
    const { name, fingerprint, lease, credentialFields } = attempt;
    try {
      await run();
    } catch (error) {
      writeError(ctx, problemOf(error, this.deps.logger, ctx.state), ctx.state.requestId);
    }
    if (lease.lost()) {
      // Another attempt may own the key now, so this one leaves it alone.
      this.deps.logger.warn(
        { requestId: ctx.state.requestId, route: ctx.state.route },
        'idempotent request lost its lease; answer not stored',
      );
      return;
    }
    const response = isStorable(ctx.status)
      ? captureResponse(ctx, ctx.state.requestId, credentialFields)
      : undefined;
    await this.settle(
      ctx,
      name,
      response && encodeRecord({ state: 'done', fingerprint, response }),
    );
  }

  /**
   * Replaces "pending" with the answer, or removes it. The answer already exists: a shared-state
   * failure here is logged, not turned into a 500 the client would retry (and so repeat the work).
   */
  private async settle(ctx: Ctx, name: string, done: string | undefined): Promise<void> {
    const keys = this.deps.state.idempotencyKeys;
    try {
      await keys.forget(name);
      if (done !== undefined) await keys.remember(name, done, this.deps.ttlSeconds);
    } catch (error) {
      this.deps.logger.error(
        { err: error, requestId: ctx.state.requestId },
        'could not store the idempotent answer',
      );
    }
  }

  private async release(name: string, token: string): Promise<void> {
    try {
      await this.deps.state.locks.release(name, token);
    } catch (error) {
      this.deps.logger.warn(
        { err: error },
        'could not release an idempotency lock (it expires by itself)',
      );
    }
  }
}
