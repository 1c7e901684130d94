import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, type Locks } from '@switchyard/shared';
import { KeyedLock } from './keyed-lock';

export interface SessionLockOptions {
  /** How long a holding lasts without renewal (a replica that dies frees the session after this). */
  ttlMs?: number;
  /** Longest wait for a session another call holds, when the call has no earlier deadline. */
  maxWaitMs?: number;
}

const DEFAULT_TTL_MS = 15_000;
const DEFAULT_MAX_WAIT_MS = 60_000;
const FIRST_RETRY_MS = 5;
const MAX_RETRY_MS = 100;

/**
 * One call per session at a time across every replica: a lock in the shared state (Redis in
 * distributed mode) held while a turn reads, answers and saves, renewed while the model works.
 * Calls in one process queue in memory first, so only one of them polls the shared lock.
 */
export class SessionLock {
  private readonly local = new KeyedLock();
  private readonly ttlMs: number;
  private readonly maxWaitMs: number;

  constructor(
    private readonly locks: Locks,
    options: SessionLockOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxWaitMs = options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS;
  }

  /** Runs task holding the session's lock; deadline (epoch ms) bounds the wait. */
  run<T>(
    organization: string,
    sessionId: string,
    task: () => Promise<T>,
    deadline?: number,
  ): Promise<T> {
    const key = `session:${JSON.stringify([organization, sessionId])}`;
    return this.local.run(key, () => this.holding(key, sessionId, task, deadline));
  }

  private async holding<T>(
    key: string,
    sessionId: string,
    task: () => Promise<T>,
    deadline?: number,
  ): Promise<T> {
    const token = await this.acquire(
      key,
      sessionId,
      Math.min(deadline ?? Infinity, Date.now() + this.maxWaitMs),
    );
    // Renewed at a third of the TTL: two renewals may fail before another replica could take over.
    const renewal = setInterval(
      () => void this.locks.extend(key, token, this.ttlMs).catch(() => undefined),
      Math.max(1, Math.floor(this.ttlMs / 3)),
    );
    renewal.unref();
    try {
      return await task();
    } finally {
      clearInterval(renewal);
      // Off the reply's path: this replica's next turn is queued behind it on the same connection,
      // and a failed release expires by itself.
      void this.locks.release(key, token).catch(() => undefined);
    }
  }

  private async acquire(key: string, sessionId: string, until: number): Promise<string> {
    for (let delay = FIRST_RETRY_MS; ; delay = Math.min(delay * 2, MAX_RETRY_MS)) {
      const token = await this.locks.acquire(key, this.ttlMs);
      if (token !== undefined) return token;
      if (Date.now() + delay >= until) {
        throw new AppError(
          'timeout',
          `session ${sessionId} is busy with another call that did not finish in time; try again`,
        );
      }
      await sleep(delay);
    }
  }
}
