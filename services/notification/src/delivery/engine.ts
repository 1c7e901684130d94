import {
  contextFromCarrier,
  currentTraceCarrier,
  injectTraceContext,
  newId,
  outageOf,
  tracingEnabled,
  withSpan,
  type Logger,
  type TraceCarrier,
} from '@switchyard/shared';
import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { NotificationConfig } from '../config';
import {
  attemptDuration,
  attemptsTotal,
  eventToFirstAttempt,
  failuresTotal,
  rateLimitedTotal,
  trackEngine,
  webhooksDisabledTotal,
} from '../metrics';
import {
  CALLBACK_TARGET,
  type AttemptRecord,
  type DeliveryRecord,
  type WebhookRecord,
} from '../model';
import type { OrgSigningSecrets } from '../signing/org-secrets';
import { activeSecrets } from '../signing/secrets';
import { signatureHeaders } from '../signing/sign';
import type { UrlPolicy } from '@switchyard/shared';
import type {
  AttemptResult,
  AttemptToRecord,
  DeliveryStore,
  PendingDelivery,
} from '../store/deliveries/port';
import type {
  ClaimedEntry,
  DueEntry,
  DueQueue,
  LaneEntry,
  Settlement,
} from '../store/due-queue/port';
import { InMemoryRateLimits } from '../store/rate-limits/memory';
import type { RateLimits } from '../store/rate-limits/port';
import { UnreadableSecretError } from '../store/secret-box';
import type { WebhookStore } from '../store/webhooks/port';
import { AttemptQueue, type QueuedAttempt } from './attempt-queue';
import { GroupCommit } from './group-commit';
import { hostKey } from './host-key';
import { HostWatch } from './host-watch';
import { postOnce, SendError, type HttpPost, type HttpResponse } from './http-sender';
import { deliveryIdentity } from './identity';
import { classifyResponse, nextAttemptTime, withJitter, type AttemptOutcome } from './outcome';

export interface NewDelivery {
  organization: string;
  /** A webhook id, or CALLBACK_TARGET for a request's webhookUrl. */
  webhookId: string;
  eventId: string;
  event: DeliveryRecord['event'];
  occurredAt: string;
  url: string;
  /** Serialized once; these bytes are signed and sent on every attempt. */
  payload: string;
  /** The webhook as just read, which the first attempt then uses without reading it again. */
  webhook?: WebhookRecord;
  /** The trace the delivery belongs to (default: the current one). */
  trace?: TraceCarrier;
  /** Set for an event with a key: the delivery waits its turn in this lane (see DeliveryRecord). */
  lane?: string;
}

/**
 * A consumed batch's place in the order of batches: its ordered deliveries are put in their
 * lanes after those of the batches before it (previous), and release() lets the next one go.
 */
export interface LaneTurn {
  previous: Promise<void>;
  release: () => void;
}

export interface DeliverOptions {
  /**
   * Log the deliveries pending and send them from the due queue, rather than attempting them
   * before they are logged: for callers that are not a consumed batch (an RPC, a threshold, a
   * webhook disabled during another attempt), which must neither wait for a receiver nor lose
   * the deliveries when the process dies.
   */
  logFirst?: boolean;
  /**
   * Some of these events may have been handled before, by a replica that died or lost its
   * partitions before it committed them: deliveries already in the log are not sent again.
   */
  mayRepeat?: boolean;
  /** Ordered deliveries (with a lane) are put in their lanes in this turn. */
  turn?: LaneTurn;
}

export interface DeliveryEngineDeps {
  deliveries: DeliveryStore;
  dueQueue: DueQueue;
  /** Send slots of webhooks with a rateLimit (default: in this process). */
  rateLimits?: RateLimits;
  webhooks: WebhookStore;
  orgSecrets: OrgSigningSecrets;
  policy: UrlPolicy;
  config: NotificationConfig['delivery'];
  logger: Logger;
  /** The HTTP transport; replaceable in tests. */
  post?: (request: HttpPost) => Promise<HttpResponse>;
  /** Tells the organization that one of its webhooks was disabled. */
  onWebhookDisabled?: (webhook: WebhookRecord, reason: string, disabledAt: string) => Promise<void>;
}

/**
 * A new delivery's first attempt, made before the delivery is logged: the delivery is written
 * once, with its outcome. One still waiting for a slot when the batch stops waiting is withdrawn
 * (logged pending, sent from the due queue); one still sending is logged pending under a lease
 * and its outcome recorded when it comes (`late`).
 */
export interface FirstAttempt {
  state: 'waiting' | 'sending' | 'done' | 'withdrawn';
  host: string;
  /** While sending: its lease (the due queue's entry falls due then if this process dies). */
  lease?: number;
  late?: boolean;
  /** A late attempt's outcome waits for this: the batch logged the delivery. */
  logged?: ReturnType<typeof deferred>;
  /** Withdrawn for its webhook's rate limit: logged pending, due at this slot (ms). */
  slot?: number;
  /** The delivery with the attempt applied, once done. */
  result?: DeliveryRecord;
  settled: Promise<void>;
  settle: () => void;
}

type Outcome = AttemptOutcome | { kind: 'abandon'; reason: string; error: string };

type Target =
  | { url: string; secrets: string[]; webhook?: WebhookRecord }
  | { url: string; abandon: string; webhook?: WebhookRecord }
  /** The delivery cannot be prepared (its secret does not decrypt, its record is invalid): it fails, alone. */
  | { url: string; unprepared: string; webhook?: WebhookRecord };

/** How often a batch looks at its first attempts still out. */
const FIRST_ATTEMPT_CHECK_MS = 250;
const SWEEP_BATCH = 500;
/** A lease outlasts an attempt (its timeout) by this much, the time to record the outcome. */
const LEASE_MARGIN_MS = 10_000;
/** Attempts waiting in memory per host slot at most; past it, the host's work waits in the due queue. */
const WAITING_PER_SLOT = 100;
/** Attempts started and not yet recorded, per attempt sending at most (WEBHOOK_MAX_CONCURRENCY). */
const UNFINISHED_PER_SENDING = 4;
/** Attempts waiting per host slot however slow the host has been lately. */
const MIN_WAITING_PER_SLOT = 8;
/** Due work of a host that has no room is looked at again after this long (or when the host has room again). */
const HOST_BUSY_RECHECK_MS = 250;
/** A sweep checks that the due queue was not lost (Redis restarted without its data) every this many sweeps. */
const QUEUE_CHECK_SWEEPS = 5;
/** How long one instance may take to rebuild a lost due queue before another may start. */
const REBUILD_TTL_MS = 60_000;
const REBUILD_PAGE = 1000;
/** Deliveries of batches that could not be logged, kept to be logged without being sent again. */
const UNFINISHED_KEPT = 100_000;
/** The failure reason of a delivery that could not be prepared. */
export const UNPREPARED = 'unprepared';
/** Deliveries in a row that could not be prepared before their webhook is disabled. */
export const PREPARATION_FAILURES_TO_DISABLE = 3;

/** A promise and its resolve/reject, for a result that arrives from elsewhere. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } {
  let resolve!: () => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Sends deliveries with retries. New deliveries (a consumed batch's) are attempted at once and
 * then written to the delivery log with their outcome, in one insert per batch: until then the
 * consumed events, not yet committed, are what a crash falls back on. What is due later, goes to
 * a host that does not answer (HostWatch), or is not done within WEBHOOK_FIRST_ATTEMPT_WAIT_MS is
 * logged as pending and put in the due queue, whose claims (shared by the replicas) the sweep
 * takes: a slow host holds a partition no longer than that.
 */
export class DeliveryEngine {
  private readonly queue: AttemptQueue;
  /** Outcomes of logged deliveries are written in batches: one store write for the attempts that end together. */
  private readonly recorder: GroupCommit<AttemptToRecord>;
  /** Claims are ended (and lanes advanced) in batches too: one due-queue script for those that end together. */
  private readonly settler: GroupCommit<Settlement>;
  private readonly post: (request: HttpPost) => Promise<HttpResponse>;
  private readonly hosts: HostWatch;
  private readonly rateLimits: RateLimits;
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private readonly webhookReads = new Map<string, Promise<WebhookRecord | undefined>>();
  /** Deliveries a batch could not log (the database went away): a retry logs them, not sends them. */
  private readonly unfinished = new Map<string, DeliveryRecord>();
  /**
   * Ordered deliveries that headed their empty lanes when their batch put them there: claimed by
   * this process and not logged yet (the batch logs them with their first attempt's outcome).
   */
  private readonly heldHeads = new Map<string, ClaimedEntry>();
  /** Late first attempts whose delivery no batch has logged yet, by delivery id. */
  private readonly awaitingLog = new Map<string, FirstAttempt>();
  /** Batches being created (stop waits for them to be logged). */
  private readonly creating = new Set<Promise<unknown>>();
  /** The ids of the deliveries those batches are creating, from their log lookup until logged. */
  private readonly inCreation = new Set<string>();
  private readonly stopped = deferred();
  private sweepTimer?: NodeJS.Timeout;
  /** The sweep running now, if any (stop waits for it so no claim outlives the stores). */
  private sweeping?: Promise<void>;
  private sweepAgain = false;
  /** Due work was left in the queue because its host had no room: sweep when a host has room again. */
  private overflowed = false;
  private queueCheckedAt = 0;
  private stopping = false;
  private untrackMetrics?: () => void;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.post = deps.post ?? postOnce;
    this.hosts = new HostWatch(deps.config.hostStallMs);
    this.rateLimits = deps.rateLimits ?? new InMemoryRateLimits();
    this.recorder = new GroupCommit((items) => deps.deliveries.recordAttempts(items), 8);
    this.settler = new GroupCommit((items) => deps.dueQueue.settle(items), 2);
    this.queue = new AttemptQueue(
      {
        perHost: deps.config.maxConcurrencyPerHost,
        overall: deps.config.maxConcurrency,
        // Outcomes are recorded in batches after the send: room for a few batches of them.
        unfinished: deps.config.maxConcurrency * UNFINISHED_PER_SENDING,
        waitingPerHost: deps.config.maxConcurrencyPerHost * WAITING_PER_SLOT,
        minWaitingPerHost: deps.config.maxConcurrencyPerHost * MIN_WAITING_PER_SLOT,
        // A claim has the lease margin to spare beyond one attempt: work admitted to wait
        // should start well within it, or it would be handed back and claimed again.
        admissionWindowMs: LEASE_MARGIN_MS / 4,
      },
      (item, hostDone) => this.attemptQueued(item, hostDone),
      () => this.onHostRoom(),
    );
  }

  start(): void {
    this.untrackMetrics = trackEngine({
      pending: () => this.deps.dueQueue.size(),
      queued: () => this.queue.size(),
      disabledWebhooks: () => this.deps.webhooks.countDisabled(),
    });
    this.sweepTimer = setInterval(() => this.requestSweep(), this.deps.config.sweepIntervalMs);
    this.sweepTimer.unref();
    this.requestSweep();
  }

  /**
   * Stops taking work: batches being created log what they have, attempts in flight finish (each
   * bounded by the attempt timeout), claims waiting for a slot are handed back to the due queue.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    this.stopped.resolve();
    clearInterval(this.sweepTimer);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wakeTimers.clear();
    await this.sweeping;
    const waiting = this.queue.takeWaiting();
    for (const { first } of waiting) if (first) first.state = 'withdrawn';
    await Promise.allSettled([...this.creating]);
    // What no batch logged now never will be here: its events are handled again elsewhere.
    for (const first of this.awaitingLog.values()) first.logged!.reject(new Error('stopped'));
    this.awaitingLog.clear();
    await this.queue.idle();
    const claims = waiting.flatMap(({ claim }) => (claim ? [claim] : []));
    await this.deps.dueQueue
      .settle(claims.map((claim) => ({ ...claim, next: Date.now() })))
      .catch((error: unknown) =>
        // Not handed back: they fall due when their leases end.
        this.deps.logger.warn({ err: error }, 'could not hand claims back to the due queue'),
      );
    this.untrackMetrics?.();
  }

  /**
   * Makes the deliveries of a batch of events (one per event and target) and resolves once every
   * one is in the delivery log: attempted once, or pending in the due queue. Returns how many were
   * new.
   */
  async deliver(inputs: NewDelivery[], options: DeliverOptions = {}): Promise<number> {
    const now = Date.now();
    const items = new Map<string, { record: DeliveryRecord; webhook?: WebhookRecord }>();
    for (const input of inputs) {
      const { id, messageId } = deliveryIdentity(
        input.organization,
        input.eventId,
        input.webhookId,
      );
      if (!items.has(id))
        items.set(id, {
          record: this.newRecord(input, id, messageId, now),
          webhook: input.webhook,
        });
    }
    return (await this.tracked(this.create([...items.values()], options))).length;
  }

  /**
   * A replay (as Svix does it): a new delivery with its own attempts and retries, the same body
   * and the same webhook-id (message id), so receivers that already processed it can dedupe.
   */
  async replay(original: DeliveryRecord, url: string): Promise<DeliveryRecord> {
    return (await this.replayAll([original], url))[0]!;
  }

  /** Replays of several deliveries to one URL, logged together (one write), in the given order. */
  async replayAll(originals: DeliveryRecord[], url: string): Promise<DeliveryRecord[]> {
    const now = Date.now();
    const records = originals.map((original) => ({
      record: {
        // A replay is sent on its own, outside any lane.
        ...this.newRecord(
          { ...original, url, lane: undefined },
          newId('dlv'),
          original.messageId,
          now,
        ),
        replayOf: original.id,
      },
    }));
    const logged = new Map(
      (await this.tracked(this.create(records, { logFirst: true }))).map((r) => [r.id, r]),
    );
    return records.map(({ record }) => logged.get(record.id) ?? record);
  }

  private tracked<T>(work: Promise<T>): Promise<T> {
    this.creating.add(work);
    return work.finally(() => this.creating.delete(work));
  }

  private newRecord(
    input: Omit<NewDelivery, 'webhook'>,
    id: string,
    messageId: string,
    now: number,
  ): DeliveryRecord {
    const trace = input.trace ?? currentTraceCarrier();
    return {
      ...(trace && { trace }),
      id,
      organization: input.organization,
      webhookId: input.webhookId,
      messageId,
      eventId: input.eventId,
      event: input.event,
      occurredAt: input.occurredAt,
      url: input.url,
      payload: input.payload,
      ...(input.lane && { lane: input.lane }),
      status: 'pending',
      attempts: [],
      createdAt: new Date(now).toISOString(),
      nextAttemptAt: new Date(
        now + withJitter(this.deps.config.retrySchedule[0] ?? 0),
      ).toISOString(),
    };
  }

  /** First attempts, then one log write and one due-queue write for the batch; returns what was logged. */
  private async create(
    items: Array<{ record: DeliveryRecord; webhook?: WebhookRecord }>,
    options: DeliverOptions,
  ): Promise<DeliveryRecord[]> {
    // An event consumed twice close together (published again with its id; two batches of a
    // partition are in flight) is not in the log yet while the first batch sends it: that batch
    // attempts and logs it, and if it fails it is handled again with it.
    const own = items.filter((i) => !this.inCreation.has(i.record.id));
    for (const { record } of own) this.inCreation.add(record.id);
    try {
      return await this.createOwn(own, options);
    } finally {
      for (const { record } of own) this.inCreation.delete(record.id);
    }
  }

  private async createOwn(
    items: Array<{ record: DeliveryRecord; webhook?: WebhookRecord }>,
    options: DeliverOptions,
  ): Promise<DeliveryRecord[]> {
    const fresh = await this.withoutLogged(items, options.mayRepeat === true);
    const { heads, waiting } = await this.putInLanes(
      fresh.filter((i) => i.record.lane && !this.unfinished.has(i.record.id)),
      options.turn,
    );
    const now = Date.now();
    const toLog: DeliveryRecord[] = [];
    const firsts: Array<{ record: DeliveryRecord; first: FirstAttempt }> = [];
    for (const { record, webhook } of fresh) {
      const claim = heads.get(record.id);
      if (record.lane && !this.unfinished.has(record.id) && !claim) continue; // in its lane already
      const earlier = this.unfinished.get(record.id);
      if (earlier) toLog.push(earlier);
      else if (!options.logFirst && this.startsNow(record, now)) {
        const first = this.firstAttempt(record);
        firsts.push({ record, first });
        this.queue.submit({ delivery: record, webhook, first, ...(claim && { claim }) });
      } else toLog.push(record);
    }
    await this.firstAttempts(firsts.map((f) => f.first));
    for (const { record, first } of firsts) toLog.push(this.logged(record, first));
    if (toLog.length === 0) return waiting;
    for (const record of toLog) this.keepUnfinished(record);
    await this.deps.deliveries.insert(toLog);
    const pending = toLog.filter((r) => r.status === 'pending');
    await this.deps.dueQueue.schedule(pending.filter((r) => !r.lane).map(dueEntry));
    await this.deps.dueQueue.appendToLanes(
      pending.filter((r) => r.lane && !this.heldHeads.has(r.id)).map(laneEntry),
    );
    await this.settleHeldHeads(toLog);
    for (const record of toLog) {
      this.unfinished.delete(record.id);
      this.awaitingLog.get(record.id)?.logged!.resolve();
      this.awaitingLog.delete(record.id);
    }
    if (pending.some((r) => Date.parse(r.nextAttemptAt!) <= Date.now())) {
      this.overflowed = true;
      this.requestSweep();
    }
    for (const record of pending) this.wakeAfter(Date.parse(record.nextAttemptAt!) - Date.now());
    return [...waiting, ...toLog];
  }

  /**
   * Ordered deliveries are put in their lanes in the batch's turn (after the lanes of batches
   * before it), before the batch's other deliveries are attempted, in one script. One whose lane
   * is empty heads it, claimed by this process under a lease (as if its sweep had claimed it), and
   * is attempted and logged like an unordered delivery: one log write, with its outcome. The
   * others are logged pending first and appended behind the deliveries before them (a second
   * script), and go when those are done. A head is not logged until its attempt ends, but no
   * other process takes it before its lease ends, and nothing behind it goes before it is done.
   */
  private async putInLanes(
    items: Array<{ record: DeliveryRecord; webhook?: WebhookRecord }>,
    turn: LaneTurn | undefined,
  ): Promise<{ heads: Map<string, ClaimedEntry>; waiting: DeliveryRecord[] }> {
    await turn?.previous;
    try {
      const heads = new Map<string, ClaimedEntry>();
      if (items.length === 0) return { heads, waiting: [] };
      const lease = this.leaseUntil();
      const entries = new Map(
        items.map(({ record }) => [record.id, { ...laneEntry(record), dueAt: lease }]),
      );
      for (const id of await this.deps.dueQueue.headEmptyLanes([...entries.values()])) {
        const claim = { id, host: entries.get(id)!.host, lease };
        heads.set(id, claim);
        this.holdHead(claim);
      }
      const waiting = items.map((i) => i.record).filter((r) => !heads.has(r.id));
      if (waiting.length === 0) return { heads, waiting };
      for (const record of waiting) this.keepUnfinished(record);
      await this.deps.deliveries.insert(waiting);
      const due = await this.deps.dueQueue.appendToLanes(waiting.map(laneEntry));
      for (const record of waiting) this.unfinished.delete(record.id);
      if (due.length > 0) this.requestSweep();
      return { heads, waiting };
    } finally {
      turn?.release();
    }
  }

  private holdHead(claim: ClaimedEntry): void {
    if (this.heldHeads.size >= UNFINISHED_KEPT) {
      // Forgotten ones fall due when their leases end.
      this.heldHeads.delete(this.heldHeads.keys().next().value!);
    }
    this.heldHeads.set(claim.id, claim);
  }

  /**
   * Lane heads this process held, now logged: one done with leaves its lane (the next falls due),
   * one still pending is due at its next attempt (its lane waits), one still out is settled when
   * its outcome comes. One script for the batch.
   */
  private async settleHeldHeads(logged: DeliveryRecord[]): Promise<void> {
    const settlements: Settlement[] = [];
    const pending: DeliveryRecord[] = [];
    for (const record of logged) {
      const claim = this.heldHeads.get(record.id);
      if (!claim) continue;
      this.heldHeads.delete(record.id);
      if (this.awaitingLog.has(record.id)) continue;
      if (record.status !== 'pending') settlements.push({ ...claim, lane: record.lane! });
      else {
        settlements.push({ ...claim, next: Date.parse(record.nextAttemptAt!) });
        pending.push(record);
      }
    }
    if (settlements.length === 0) return;
    await this.deps.dueQueue.settle(settlements);
    // A head whose lease ran out before it was logged may have been dropped from the queue by
    // a sweep that found no record: put back (a no-op for the others).
    if (pending.length > 0) await this.deps.dueQueue.appendToLanes(pending.map(laneEntry));
    if (settlements.some((s) => s.lane)) this.requestSweep();
  }

  /**
   * Deliveries not in the log yet. An event published twice (a publisher retried a send Kafka
   * had taken) is found by one of its deliveries: the first of each event is looked up. When
   * another member may have handled the batch (mayRepeat), every delivery is, and those logged
   * pending are put back in the due queue (in case it lost them).
   */
  private async withoutLogged<T extends { record: DeliveryRecord }>(
    items: T[],
    mayRepeat: boolean,
  ): Promise<T[]> {
    const fresh = items.filter((i) => !this.unfinished.has(i.record.id));
    const firstOfEvent = new Map<string, string>();
    for (const { record } of fresh)
      if (!firstOfEvent.has(eventKey(record))) firstOfEvent.set(eventKey(record), record.id);
    const ids = mayRepeat ? fresh.map((i) => i.record.id) : [...firstOfEvent.values()];
    if (ids.length === 0) return items;
    const logged = await this.deps.deliveries.getMany(ids);
    if (logged.length === 0) return items;
    if (mayRepeat) {
      const pending = logged.filter((r) => r.status === 'pending');
      await this.deps.dueQueue.schedule(pending.filter((r) => !r.lane).map(dueEntry), {
        keepExisting: true,
      });
      await this.deps.dueQueue.appendToLanes(pending.filter((r) => r.lane).map(laneEntry));
    }
    const known = new Set(logged.map((r) => r.id));
    const handledEvents = new Set(logged.map(eventKey));
    return items.filter(
      (i) =>
        !known.has(i.record.id) &&
        (mayRepeat || this.unfinished.has(i.record.id) || !handledEvents.has(eventKey(i.record))),
    );
  }

  /** Whether a new delivery is attempted before it is logged: due now, to a host that answers. */
  private startsNow(record: DeliveryRecord, now: number): boolean {
    if (this.stopping || Date.parse(record.nextAttemptAt!) > now) return false;
    return !this.hosts.heldBack(hostKey(record.url), now);
  }

  private firstAttempt(record: DeliveryRecord): FirstAttempt {
    const done = deferred();
    return {
      state: 'waiting',
      host: hostKey(record.url),
      settled: done.promise,
      settle: done.resolve,
    };
  }

  /**
   * Waits for the first attempts. Every FIRST_ATTEMPT_CHECK_MS those of hosts held back (see
   * HostWatch) stop being waited for, and after firstAttemptWaitMs all do: waiting ones are
   * withdrawn (logged pending), sending ones are late (logged pending under their lease). A host
   * that keeps answering holds its batch, and so the partition: back-pressure when this process
   * is busy, rather than a detour through the due queue, which costs more.
   */
  private async firstAttempts(firsts: FirstAttempt[]): Promise<void> {
    const started = Date.now();
    let open = firsts;
    const waitMs = this.deps.config.firstAttemptWaitMs;
    while (open.length > 0 && !this.stopping && Date.now() - started < waitMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(open.map((f) => f.settled)),
        new Promise<void>((resolve) => (timer = setTimeout(resolve, FIRST_ATTEMPT_CHECK_MS))),
        this.stopped.promise,
      ]);
      clearTimeout(timer);
      const now = Date.now();
      for (const first of open) if (this.hosts.heldBack(first.host, now)) letGo(first);
      open = open.filter(unsettled);
    }
    for (const first of open) letGo(first);
  }

  /** What the log gets for a new delivery: its outcome, or pending (under the attempt's lease while it is still out). */
  private logged(record: DeliveryRecord, first: FirstAttempt): DeliveryRecord {
    if (first.state === 'done') return first.result!;
    if (first.slot !== undefined)
      return { ...record, nextAttemptAt: new Date(first.slot).toISOString() };
    if (first.late) {
      this.awaitingLog.set(record.id, first);
      return { ...record, nextAttemptAt: new Date(first.lease!).toISOString() };
    }
    return record;
  }

  private keepUnfinished(record: DeliveryRecord): void {
    if (this.unfinished.size >= UNFINISHED_KEPT) {
      // Forgotten ones are sent again when their events are (same webhook-id).
      const oldest = this.unfinished.keys().next().value!;
      this.unfinished.delete(oldest);
    }
    this.unfinished.set(record.id, record);
  }

  /** Runs a sweep soon for retries due before the next regular sweep. */
  private wakeAfter(delayMs: number): void {
    if (this.stopping || delayMs >= this.deps.config.sweepIntervalMs) return;
    const timer = setTimeout(
      () => {
        this.wakeTimers.delete(timer);
        this.requestSweep();
      },
      Math.max(0, delayMs) + 1,
    );
    timer.unref();
    this.wakeTimers.add(timer);
  }

  private requestSweep(): void {
    if (this.stopping) return;
    if (this.sweeping) {
      this.sweepAgain = true;
      return;
    }
    this.sweeping = this.sweep()
      .catch((error: unknown) =>
        // The database or Redis down is an outage the next sweeps get past, not a defect.
        outageOf(error)
          ? this.deps.logger.warn({ err: error }, 'delivery sweep failed: dependency unavailable')
          : this.deps.logger.error({ err: error }, 'delivery sweep failed'),
      )
      .finally(() => {
        this.sweeping = undefined;
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.requestSweep();
        }
      });
  }

  private onHostRoom(): void {
    if (!this.overflowed) return;
    this.overflowed = false;
    this.requestSweep();
  }

  /** Claims due work from the due queue, within each host's room (the rest waits a little). */
  private async sweep(): Promise<void> {
    await this.rebuildQueueIfLost();
    const now = Date.now();
    const { claimed, postponed } = await this.deps.dueQueue.claim({
      now,
      limit: SWEEP_BATCH,
      leaseUntil: this.leaseUntil(now),
      room: this.queue.room(),
      postponeUntil: now + HOST_BUSY_RECHECK_MS,
    });
    if (postponed > 0) {
      this.overflowed = true;
      this.wakeAfter(HOST_BUSY_RECHECK_MS);
    }
    if (claimed.length === 0) return;
    const records = new Map(
      (await this.deps.deliveries.getMany(claimed.map((c) => c.id))).map((r) => [r.id, r]),
    );
    const webhooks = await this.webhooksOf([...records.values()]);
    const finished: Settlement[] = [];
    const unlogged: ClaimedEntry[] = [];
    for (const claim of claimed) {
      const delivery = records.get(claim.id);
      // Not logged: a lane head whose holder died before its batch logged it, or nothing to send.
      if (!delivery) unlogged.push(claim);
      // Finished meanwhile (a stale entry): nothing to attempt. Its lane may still wait for it
      // (the process that finished it died before moving on).
      else if (delivery.status !== 'pending')
        finished.push({ ...claim, ...(delivery.lane && { lane: delivery.lane }) });
      else this.queue.submit({ delivery, claim, webhook: webhooks.get(webhookKey(delivery)) });
    }
    await this.deps.dueQueue.settle(finished);
    await this.deps.dueQueue.releaseUnlogged(unlogged, this.leaseUntil());
    if (claimed.length + postponed >= SWEEP_BATCH) this.sweepAgain = true;
  }

  /**
   * The webhooks of claimed deliveries, each read once for the claim (an attempt reads its own
   * when this read failed).
   */
  private async webhooksOf(deliveries: DeliveryRecord[]): Promise<Map<string, WebhookRecord>> {
    const wanted = new Map<string, DeliveryRecord>();
    for (const delivery of deliveries)
      if (delivery.status === 'pending' && delivery.webhookId !== CALLBACK_TARGET)
        wanted.set(webhookKey(delivery), delivery);
    const read = await Promise.all(
      [...wanted].map(async ([key, { organization, webhookId }]) => {
        const webhook = await this.readWebhook(organization, webhookId).catch(() => undefined);
        return [key, webhook] as const;
      }),
    );
    return new Map(read.filter((entry): entry is [string, WebhookRecord] => !!entry[1]));
  }

  /**
   * A due queue that was lost (Redis restarted without its data) is filled again from the log's
   * pending deliveries, by one instance; checked every QUEUE_CHECK_SWEEPS sweep intervals.
   */
  private async rebuildQueueIfLost(): Promise<void> {
    if (Date.now() - this.queueCheckedAt < QUEUE_CHECK_SWEEPS * this.deps.config.sweepIntervalMs)
      return;
    const { dueQueue, deliveries, logger } = this.deps;
    if (await dueQueue.complete()) {
      this.queueCheckedAt = Date.now();
      return;
    }
    if (!(await dueQueue.startRebuild(REBUILD_TTL_MS))) return;
    let after = '';
    let count = 0;
    const laned: PendingDelivery[] = [];
    for (;;) {
      const page = await deliveries.pending(after, REBUILD_PAGE);
      await dueQueue.schedule(page.filter((p) => !p.lane).map(dueEntry), { keepExisting: true });
      laned.push(...page.filter((p) => p.lane));
      count += page.length;
      if (page.length < REBUILD_PAGE) break;
      after = page[page.length - 1]!.id;
    }
    // Lanes again in the order their deliveries were created.
    laned.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    await dueQueue.appendToLanes(laned.map(laneEntry));
    await dueQueue.finishRebuild();
    this.queueCheckedAt = Date.now();
    logger.info({ pending: count }, 'due queue filled from the delivery log');
  }

  private leaseUntil(now = Date.now()): number {
    return now + this.deps.config.timeoutMs + LEASE_MARGIN_MS;
  }

  /** Runs a queued attempt; a claim that no longer covers a whole attempt is handed back. */
  private async attemptQueued(item: QueuedAttempt, hostDone: () => void): Promise<void> {
    const { delivery, first, claim } = item;
    try {
      if (first) {
        if (first.state !== 'waiting') return; // withdrawn: logged pending, the due queue has it
        first.state = 'sending';
        first.lease = this.leaseUntil();
      } else if (
        claim &&
        (this.stopping || claim.lease - Date.now() <= this.deps.config.timeoutMs)
      ) {
        const next = Date.now() + (this.stopping ? 0 : HOST_BUSY_RECHECK_MS);
        await this.deps.dueQueue.settle([{ ...claim, next }]);
        return;
      }
      await this.attempt(item, hostDone);
    } catch (error) {
      this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt failed');
    } finally {
      first?.settle();
    }
  }

  /** Sends, frees the host's slot (recording the outcome does not load the receiver), then records. */
  private async attempt(item: QueuedAttempt, hostDone: () => void): Promise<void> {
    const { delivery, webhook } = item;
    if (delivery.attempts.length === 0 && !delivery.replayOf) {
      eventToFirstAttempt.observe(Math.max(0, Date.now() - Date.parse(delivery.occurredAt)) / 1000);
    }
    const host = hostKey(delivery.url);
    const target = await this.target(delivery, webhook);
    const slot = await this.slotOf(delivery, target);
    if (slot > 0) {
      hostDone();
      await this.postpone(item, slot);
      return;
    }
    const sent = this.hosts.started(host);
    const { attempt, outcome } =
      'abandon' in target
        ? abandoned(target.abandon)
        : 'unprepared' in target
          ? unprepared(target.unprepared)
          : await this.tracedSend(delivery, target.url, target.secrets);
    sent();
    if (attempt.statusCode > 0) this.hosts.answered(host);
    else if (
      outcome.kind === 'failure' &&
      (outcome.reason === 'timeout' || outcome.reason === 'network')
    )
      this.hosts.unreachable(host);
    hostDone();
    await this.record(item, target, attempt, outcome);
  }
  /**
   * 0 when the delivery may go now; else the send slot its webhook's rate limit reserved for it
   * (shared by the replicas). Deliveries that will not be sent (abandoned, unprepared) take none.
   */
  private async slotOf(delivery: DeliveryRecord, target: Target): Promise<number> {
    const perSecond = target.webhook?.rateLimit;
    if (!perSecond || !('secrets' in target)) return 0;
    const key = `${delivery.organization}:${delivery.webhookId}`;
    return this.rateLimits.take(key, delivery.id, perSecond, Date.now());
  }

  /**
   * A delivery over its webhook's rate limit waits in the due queue until its slot: a first
   * attempt is withdrawn (its batch logs it pending, due then), a claim is handed back.
   */
  private async postpone(item: QueuedAttempt, slot: number): Promise<void> {
    const { delivery, first, claim } = item;
    rateLimitedTotal.inc();
    if (first && !first.late) {
      first.state = 'withdrawn';
      first.slot = slot;
    } else {
      if (first) await first.logged!.promise;
      const lease = claim?.lease ?? first?.lease;
      if (lease !== undefined)
        await this.settler.add({
          id: delivery.id,
          host: claim?.host ?? hostKey(delivery.url),
          lease,
          next: slot,
        });
    }
    this.wakeAfter(slot - Date.now());
  }

  /**
   * The attempt as a client span, child of the span that created the delivery (the consumed
   * event's, kept with the record so retries from the schedule continue the same trace).
   */
  private tracedSend(
    delivery: DeliveryRecord,
    url: string,
    secrets: string[],
  ): Promise<{ attempt: AttemptRecord; outcome: Outcome }> {
    if (!tracingEnabled()) return this.send(delivery, url, secrets);
    const attributes = {
      'http.request.method': 'POST',
      // Scheme and host only: paths and queries of webhook URLs can carry the receiver's tokens.
      'server.address': new URL(url).hostname,
      'switchyard.delivery.id': delivery.id,
      'switchyard.webhook.event': delivery.event,
      'switchyard.delivery.attempt': delivery.attempts.length + 1,
    };
    return withSpan(
      'webhook POST',
      {
        kind: SpanKind.CLIENT,
        service: 'notification',
        parent: contextFromCarrier(delivery.trace),
        attributes,
      },
      async (span) => {
        const sent = await this.send(delivery, url, secrets);
        describeAttempt(span, sent.attempt, sent.outcome);
        return sent;
      },
    );
  }

  /** Where and with which secrets to send: the webhook's current URL and secrets, or the org's. */
  private async target(delivery: DeliveryRecord, known?: WebhookRecord): Promise<Target> {
    if (delivery.webhookId === CALLBACK_TARGET) {
      try {
        return {
          url: delivery.url,
          secrets: await this.deps.orgSecrets.active(delivery.organization),
        };
      } catch (error) {
        // A store outage is retried when the claim expires; a secret that cannot be read fails here.
        if (!(error instanceof UnreadableSecretError)) throw error;
        return { url: delivery.url, unprepared: error.message };
      }
    }
    const webhook = known ?? (await this.readWebhook(delivery.organization, delivery.webhookId));
    if (!webhook) return { url: delivery.url, abandon: 'webhook was deleted' };
    if (!webhook.enabled) {
      return {
        url: webhook.url,
        webhook,
        abandon: `webhook is disabled${webhook.disabledReason ? `: ${webhook.disabledReason}` : ''}`,
      };
    }
    const problem = webhookProblem(webhook);
    if (problem) return { url: delivery.url, webhook, unprepared: problem };
    return { url: webhook.url, secrets: activeSecrets(webhook), webhook };
  }

  /**
   * The webhook as stored now; concurrent reads of one webhook (a swept batch of its
   * deliveries) share one store read.
   */
  private readWebhook(organization: string, id: string): Promise<WebhookRecord | undefined> {
    const key = webhookKey({ organization, webhookId: id });
    const reading = this.webhookReads.get(key);
    if (reading) return reading;
    const read = this.deps.webhooks
      .get(organization, id)
      .finally(() => this.webhookReads.delete(key));
    this.webhookReads.set(key, read);
    return read;
  }

  private async send(
    delivery: DeliveryRecord,
    url: string,
    secrets: string[],
  ): Promise<{ attempt: AttemptRecord; outcome: Outcome }> {
    const attemptedAt = new Date().toISOString();
    const started = Date.now();
    // Checked again at send time: DNS may have changed since registration.
    const check = await this.deps.policy.check(url);
    if (!check.allowed) {
      const error = `destination refused: ${check.reason}`;
      return {
        attempt: attemptRecord(attemptedAt, 0, 0, '', error),
        outcome: { kind: 'failure', reason: 'destination_refused', error },
      };
    }
    const body = Buffer.from(delivery.payload, 'utf8');
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Switchyard-Webhooks/1.0',
      ...signatureHeaders(secrets, delivery.messageId, Math.floor(Date.now() / 1000), body),
    };
    // traceparent (and tracestate) of the attempt's span, so the receiver can continue the trace.
    injectTraceContext(headers);
    try {
      const response = await this.post({
        url: check.url,
        address: check.addresses[0]!,
        headers,
        body,
        timeoutMs: this.deps.config.timeoutMs,
      });
      const durationMs = Date.now() - started;
      attemptDuration.observe(durationMs / 1000);
      const outcome = classifyResponse(response.statusCode, response.headers);
      const error =
        outcome.kind === 'failure' ? outcome.error : outcome.kind === 'gone' ? 'HTTP 410 Gone' : '';
      return {
        attempt: attemptRecord(attemptedAt, response.statusCode, durationMs, response.body, error),
        outcome,
      };
    } catch (caught) {
      const durationMs = Date.now() - started;
      const kind = caught instanceof SendError ? caught.kind : 'network';
      const error = caught instanceof Error ? caught.message : String(caught);
      return {
        attempt: attemptRecord(attemptedAt, 0, durationMs, '', error),
        outcome: { kind: 'failure', reason: kind, error },
      };
    }
  }

  private async record(
    item: QueuedAttempt,
    target: Target,
    attempt: AttemptRecord,
    outcome: Outcome,
  ): Promise<void> {
    const { delivery, first, claim } = item;
    const now = Date.now();
    const next =
      outcome.kind === 'failure'
        ? nextAttemptTime(
            this.deps.config.retrySchedule,
            delivery.attempts.length + 1,
            now,
            outcome.retryAfterMs,
          )
        : undefined;
    const result: AttemptResult = {
      attempt,
      status: outcome.kind === 'success' ? 'succeeded' : next === undefined ? 'failed' : 'pending',
      nextAttemptAt: next === undefined ? undefined : new Date(next).toISOString(),
      url: target.url,
    };
    attemptsTotal.inc({ outcome: outcome.kind === 'success' ? 'succeeded' : 'failed' });
    if (outcome.kind !== 'success') failuresTotal.inc({ reason: failureReason(outcome) });
    if (first && !first.late) {
      // Logged by the batch, with this outcome.
      first.result = applied(delivery, result);
      first.state = 'done';
      this.keepIfUnfinished(first.result);
    } else {
      // Late: recorded on the delivery once its batch has logged it.
      if (first) await first.logged!.promise;
      await this.recorder.add({ organization: delivery.organization, id: delivery.id, result });
      // Done with (succeeded or finally failed): the next of its lane falls due, in the same
      // script as the settlement.
      const lane = delivery.lane && next === undefined ? delivery.lane : undefined;
      const lease = claim?.lease ?? first?.lease;
      const host = claim?.host ?? hostKey(delivery.url);
      if (lease !== undefined)
        await this.settler.add({ id: delivery.id, host, lease, next, ...(lane && { lane }) });
      else if (lane) await this.deps.dueQueue.advanceLane(lane, delivery.id, Date.now());
      if (lane) this.requestSweep();
    }
    if (next !== undefined) this.wakeAfter(next - now);
    if (target.webhook && outcome.kind !== 'abandon')
      await this.updateWebhookHealth(target.webhook, outcome, now);
  }

  /** A delivery of a batch that could not be logged, attempted again: the retry logs this outcome. */
  private keepIfUnfinished(record: DeliveryRecord): void {
    if (this.unfinished.has(record.id)) this.unfinished.set(record.id, record);
  }

  /**
   * 410 disables at once; continuous failure for disableAfterMs disables, and so do
   * PREPARATION_FAILURES_TO_DISABLE deliveries in a row that could not be prepared; a success
   * resets both.
   */
  private async updateWebhookHealth(
    webhook: WebhookRecord,
    outcome: AttemptOutcome,
    now: number,
  ): Promise<void> {
    const webhooks = this.deps.webhooks;
    const updatedAt = new Date(now).toISOString();
    if (outcome.kind === 'success') {
      if (webhook.failingSince || webhook.preparationFailures)
        await webhooks.update(webhook.organization, webhook.id, {
          failingSince: undefined,
          preparationFailures: undefined,
        });
      return;
    }
    if (outcome.kind === 'gone') {
      await this.disable(webhook, 'endpoint answered 410 Gone', updatedAt);
      return;
    }
    if (outcome.reason === UNPREPARED) {
      // Read again: deliveries of one event fail together, each must count.
      const current = await webhooks.get(webhook.organization, webhook.id);
      if (!current?.enabled) return;
      const failures = (current.preparationFailures ?? 0) + 1;
      if (failures >= PREPARATION_FAILURES_TO_DISABLE)
        await this.disable(current, `deliveries cannot be prepared: ${outcome.error}`, updatedAt);
      else
        await webhooks.update(webhook.organization, webhook.id, {
          preparationFailures: failures,
          failingSince: current.failingSince ?? updatedAt,
        });
      return;
    }
    if (!webhook.failingSince) {
      await webhooks.update(webhook.organization, webhook.id, { failingSince: updatedAt });
    } else if (now - Date.parse(webhook.failingSince) >= this.deps.config.disableAfterMs) {
      await this.disable(webhook, `failing continuously since ${webhook.failingSince}`, updatedAt);
    }
  }

  /** Disables a webhook whose stored record cannot be used at all (in the background; logged if it fails). */
  disableDamaged(webhook: WebhookRecord, problem: string): void {
    this.disable(
      webhook,
      `deliveries cannot be prepared: ${problem}`,
      new Date().toISOString(),
    ).catch((error: unknown) =>
      this.deps.logger.error(
        { err: error, webhookId: webhook.id },
        'could not disable a damaged webhook',
      ),
    );
  }

  private async disable(webhook: WebhookRecord, reason: string, updatedAt: string): Promise<void> {
    await this.deps.webhooks.update(webhook.organization, webhook.id, {
      enabled: false,
      disabledReason: reason,
      updatedAt,
    });
    webhooksDisabledTotal.inc({
      reason: reason.startsWith('endpoint answered 410')
        ? 'gone'
        : reason.startsWith('deliveries cannot be prepared')
          ? UNPREPARED
          : 'failing',
    });
    this.deps.logger.warn(
      { webhookId: webhook.id, organization: webhook.organization, reason },
      'webhook disabled',
    );
    await this.deps.onWebhookDisabled?.(webhook, reason, updatedAt);
  }
}

function attemptRecord(
  attemptedAt: string,
  statusCode: number,
  durationMs: number,
  responseBody: string,
  error: string,
): AttemptRecord {
  return { attemptedAt, statusCode, durationMs, responseBody, error };
}

/** A delivery that could not be prepared: a failed attempt (retried on the schedule), nothing sent. */
function unprepared(error: string): { attempt: AttemptRecord; outcome: Outcome } {
  return {
    attempt: attemptRecord(new Date().toISOString(), 0, 0, '', error),
    outcome: { kind: 'failure', reason: UNPREPARED, error },
  };
}

/**
 * Why a stored webhook record cannot serve a delivery, if it cannot: a secret that does not
 * decrypt, or a field a delivery needs that is missing or malformed (a damaged record).
 */
export function webhookProblem(webhook: WebhookRecord): string | undefined {
  if (webhook.unusable) return webhook.unusable;
  if (typeof webhook.secret !== 'string' || webhook.secret === '')
    return `stored webhook ${webhook.id} has no secret`;
  if (typeof webhook.url !== 'string' || !URL.canParse(webhook.url))
    return `stored webhook ${webhook.id} has no valid url`;
  return undefined;
}

function abandoned(reason: string): { attempt: AttemptRecord; outcome: Outcome } {
  return {
    attempt: attemptRecord(new Date().toISOString(), 0, 0, '', reason),
    outcome: { kind: 'abandon', reason: 'webhook_disabled', error: reason },
  };
}

function describeAttempt(span: Span, attempt: AttemptRecord, outcome: Outcome): void {
  if (attempt.statusCode > 0) span.setAttribute('http.response.status_code', attempt.statusCode);
  if (outcome.kind !== 'success')
    span.setStatus({ code: SpanStatusCode.ERROR, message: attempt.error });
}

function failureReason(outcome: Exclude<Outcome, { kind: 'success' }>): string {
  if (outcome.kind === 'gone') return 'gone';
  return outcome.reason;
}

/** The delivery with one more attempt and its consequences. */
function applied(delivery: DeliveryRecord, result: AttemptResult): DeliveryRecord {
  const record: DeliveryRecord = {
    ...delivery,
    attempts: [...delivery.attempts, result.attempt],
    status: result.status,
    url: result.url,
  };
  if (result.nextAttemptAt) record.nextAttemptAt = result.nextAttemptAt;
  else delete record.nextAttemptAt;
  return record;
}

/** A first attempt no longer waited for: withdrawn if it has not started, late if it is out. */
function letGo(first: FirstAttempt): void {
  if (first.state === 'waiting') first.state = 'withdrawn';
  else if (first.state === 'sending') {
    first.late = true;
    first.logged = deferred();
  }
}

function unsettled(first: FirstAttempt): boolean {
  return (first.state === 'waiting' || first.state === 'sending') && !first.late;
}

function webhookKey(record: Pick<DeliveryRecord, 'organization' | 'webhookId'>): string {
  return `${record.organization}\u0000${record.webhookId}`;
}

function eventKey(record: Pick<DeliveryRecord, 'organization' | 'eventId'>): string {
  return `${record.organization}\u0000${record.eventId}`;
}

/** A pending ordered delivery's entry in its lane. */
function laneEntry(
  record: Pick<DeliveryRecord, 'id' | 'url' | 'nextAttemptAt' | 'lane'>,
): LaneEntry {
  return { ...dueEntry(record), lane: record.lane! };
}

/** A pending delivery's due-queue entry. */
function dueEntry(record: Pick<DeliveryRecord, 'id' | 'url' | 'nextAttemptAt'>): DueEntry {
  const due = Date.parse(record.nextAttemptAt ?? '');
  return { id: record.id, host: hostKey(record.url), dueAt: Number.isNaN(due) ? Date.now() : due };
}
