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
import type { DeliveryStore } from '../store/deliveries/port';
import { UnreadableSecretError } from '../store/secret-box';
import type { WebhookStore } from '../store/webhooks/port';
import { AttemptQueue, type QueuedAttempt } from './attempt-queue';
import { AttemptRecorder } from './attempt-recorder';
import { hostKey } from './host-key';
import { postOnce, SendError, type HttpPost, type HttpResponse } from './http-sender';
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
}

export interface DeliveryEngineDeps {
  deliveries: DeliveryStore;
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

type Outcome = AttemptOutcome | { kind: 'abandon'; reason: string; error: string };

type Target =
  | { url: string; secrets: string[]; webhook?: WebhookRecord }
  | { url: string; abandon: string; webhook?: WebhookRecord }
  /** The delivery cannot be prepared (its secret does not decrypt, its record is invalid): it fails, alone. */
  | { url: string; unprepared: string; webhook?: WebhookRecord };

const SWEEP_BATCH = 500;
/** A lease outlasts an attempt (its timeout) by this much, the time to record the outcome. */
const LEASE_MARGIN_MS = 10_000;
/** Attempts waiting in memory per host slot at most; past it, the host's work waits in the durable schedule. */
const WAITING_PER_SLOT = 100;
/** Attempts started and not yet recorded, per attempt sending at most (WEBHOOK_MAX_CONCURRENCY). */
const UNFINISHED_PER_SENDING = 4;
/** Attempts waiting per host slot however slow the host has been lately. */
const MIN_WAITING_PER_SLOT = 8;
/** Claims handed back on stop; the rest of a longer queue is taken over when its leases expire. */
const RELEASE_ON_STOP = 200;
/** Due work of a host that has no room is looked at again after this long (or when the host has room again). */
const HOST_BUSY_RECHECK_MS = 250;
/** The failure reason of a delivery that could not be prepared. */
export const UNPREPARED = 'unprepared';
/** Deliveries in a row that could not be prepared before their webhook is disabled. */
export const PREPARATION_FAILURES_TO_DISABLE = 3;

/**
 * Sends deliveries with retries. A new delivery is recorded already claimed by this instance
 * and attempted at once (bounded per host and overall); the durable schedule in the store holds
 * retries, work that could not be taken at once, and anything claimed by an instance that died,
 * which a sweep picks up through the schedule's due-time index.
 */
export class DeliveryEngine {
  private readonly queue: AttemptQueue;
  /** Outcomes are written in batches: one store write for the attempts that end together. */
  private readonly recorder: AttemptRecorder;
  private readonly post: (request: HttpPost) => Promise<HttpResponse>;
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  private readonly webhookReads = new Map<string, Promise<WebhookRecord | undefined>>();
  private sweepTimer?: NodeJS.Timeout;
  /** The sweep running now, if any (stop waits for it so no claim outlives the stores). */
  private sweeping?: Promise<void>;
  private sweepAgain = false;
  /** Due work was left in the schedule because its host had no room: sweep when a host has room again. */
  private overflowed = false;
  private stopping = false;
  private untrackMetrics?: () => void;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.post = deps.post ?? postOnce;
    this.recorder = new AttemptRecorder(deps.deliveries);
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
      pending: () => this.deps.deliveries.countPending(),
      queued: () => this.queue.size(),
      disabledWebhooks: () => this.deps.webhooks.countDisabled(),
    });
    this.sweepTimer = setInterval(() => this.requestSweep(), this.deps.config.sweepIntervalMs);
    this.sweepTimer.unref();
    this.requestSweep();
  }

  /** Stops picking work, waits for attempts in flight (each bounded by the attempt timeout), hands waiting claims back. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wakeTimers.clear();
    await this.sweeping;
    const waiting = this.queue.takeWaiting();
    await this.queue.idle();
    // The oldest claims are handed back for another instance to take at once; the rest (a long
    // queue would hold up the stop) fall due when their leases expire.
    const handBack = waiting.slice(0, RELEASE_ON_STOP);
    await Promise.all(
      handBack.map(({ delivery }) =>
        this.deps.deliveries.release(delivery.organization, delivery.id),
      ),
    );
    this.untrackMetrics?.();
  }

  /**
   * Records the deliveries of one event (those not recorded before: one per event and target)
   * and starts their first attempts; resolves once they are durable, not when they are sent.
   */
  async deliver(inputs: NewDelivery[]): Promise<number> {
    const now = Date.now();
    const leaseUntil = this.leaseUntil(now);
    const taken = new Map<string, number>();
    const records = inputs.map((input) => {
      const record = this.newRecord(input, `${input.eventId}\u0000${input.webhookId}`, now);
      if (this.takeAtOnce(record, now, taken)) record.leaseUntil = leaseUntil.toISOString();
      return record;
    });
    const created = await this.deps.deliveries.createMany(records);
    const webhooks = new Map(inputs.map((input) => [input.webhookId, input.webhook]));
    for (const delivery of created)
      this.startOrSchedule(delivery, webhooks.get(delivery.webhookId), now);
    return created.length;
  }

  /**
   * A replay (as Svix does it): a new delivery with its own attempts and retries, the same body
   * and the same webhook-id (message id), so receivers that already processed it can dedupe.
   */
  async replay(original: DeliveryRecord, url: string): Promise<DeliveryRecord> {
    const now = Date.now();
    const replayId = newId('dlv');
    const record: DeliveryRecord = {
      ...this.newRecord({ ...original, url }, `replay\u0000${replayId}`, now),
      id: replayId,
      messageId: original.messageId,
      replayOf: original.id,
    };
    if (this.takeAtOnce(record, now, new Map()))
      record.leaseUntil = this.leaseUntil(now).toISOString();
    const [created] = await this.deps.deliveries.createMany([record]);
    if (created) this.startOrSchedule(created, undefined, now);
    return created ?? record;
  }

  private newRecord(input: NewDelivery, dedupeKey: string, now: number): DeliveryRecord {
    const trace = input.trace ?? currentTraceCarrier();
    return {
      ...(trace && { trace }),
      id: newId('dlv'),
      organization: input.organization,
      webhookId: input.webhookId,
      dedupeKey,
      messageId: newId('msg'),
      eventId: input.eventId,
      event: input.event,
      occurredAt: input.occurredAt,
      url: input.url,
      payload: input.payload,
      status: 'pending',
      attempts: [],
      createdAt: new Date(now).toISOString(),
      nextAttemptAt: new Date(
        now + withJitter(this.deps.config.retrySchedule[0] ?? 0),
      ).toISOString(),
    };
  }

  /** Whether a new delivery is attempted at once: due now and its host has room (counting this batch). */
  private takeAtOnce(record: DeliveryRecord, now: number, taken: Map<string, number>): boolean {
    if (this.stopping || Date.parse(record.nextAttemptAt!) > now) return false;
    return this.admit(hostKey(record.url), taken);
  }

  /** Whether the host has room for one more waiting attempt, counting `taken` (this batch's); counts it. */
  private admit(host: string, taken: Map<string, number>): boolean {
    const count = taken.get(host) ?? 0;
    if (!this.queue.hasRoom(host, count)) {
      this.overflowed = true;
      return false;
    }
    taken.set(host, count + 1);
    return true;
  }

  /** Starts a delivery created claimed; one left unclaimed is due later, or waits for its host to have room (onHostRoom). */
  private startOrSchedule(
    delivery: DeliveryRecord,
    webhook: WebhookRecord | undefined,
    now: number,
  ): void {
    if (delivery.leaseUntil && !this.stopping) this.queue.submit({ delivery, webhook });
    else if (!this.overflowed) this.wakeAfter(Date.parse(delivery.nextAttemptAt ?? '') - now);
  }

  private leaseUntil(now = Date.now()): Date {
    return new Date(now + this.deps.config.timeoutMs + LEASE_MARGIN_MS);
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
        // The database down is an outage the next sweeps get past, not a defect.
        outageOf(error)
          ? this.deps.logger.warn({ err: error }, 'delivery sweep failed: database unavailable')
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

  /** Claims due work through the schedule; work of hosts without room is moved a little later, not claimed. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    const taken = new Map<string, number>();
    const claimed = await this.deps.deliveries.claimDue(
      new Date(now),
      SWEEP_BATCH,
      this.leaseUntil(now),
      {
        host: (host) => this.admit(host, taken),
        until: new Date(now + HOST_BUSY_RECHECK_MS),
      },
    );
    for (const delivery of claimed) this.queue.submit({ delivery });
    if (claimed.length === SWEEP_BATCH) this.sweepAgain = true;
  }

  /** Runs a queued attempt if its claim still covers a whole attempt; otherwise hands it back to the schedule. */
  private async attemptQueued(
    { delivery, webhook }: QueuedAttempt,
    hostDone: () => void,
  ): Promise<void> {
    try {
      if (
        this.stopping ||
        Date.parse(delivery.leaseUntil ?? '') - Date.now() <= this.deps.config.timeoutMs
      ) {
        await this.deps.deliveries.release(
          delivery.organization,
          delivery.id,
          this.stopping ? undefined : new Date(Date.now() + HOST_BUSY_RECHECK_MS),
        );
        return;
      }
      await this.attempt(delivery, webhook, hostDone);
    } catch (error) {
      this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt failed');
    }
  }

  /** Sends, frees the host's slot (recording the outcome does not load the receiver), then records. */
  private async attempt(
    delivery: DeliveryRecord,
    webhook: WebhookRecord | undefined,
    hostDone: () => void,
  ): Promise<void> {
    if (delivery.attempts.length === 0 && !delivery.replayOf) {
      eventToFirstAttempt.observe(Math.max(0, Date.now() - Date.parse(delivery.occurredAt)) / 1000);
    }
    const target = await this.target(delivery, webhook);
    const { attempt, outcome } =
      'abandon' in target
        ? abandoned(target.abandon)
        : 'unprepared' in target
          ? unprepared(target.unprepared)
          : await this.tracedSend(delivery, target.url, target.secrets);
    hostDone();
    await this.record(delivery, target, attempt, outcome);
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
    const key = `${organization}\u0000${id}`;
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
    delivery: DeliveryRecord,
    target: Target,
    attempt: AttemptRecord,
    outcome: Outcome,
  ): Promise<void> {
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
    const status =
      outcome.kind === 'success' ? 'succeeded' : next === undefined ? 'failed' : 'pending';
    await this.recorder.record({
      organization: delivery.organization,
      id: delivery.id,
      result: {
        attempt,
        status,
        nextAttemptAt: next === undefined ? undefined : new Date(next).toISOString(),
        url: target.url,
      },
    });
    attemptsTotal.inc({ outcome: outcome.kind === 'success' ? 'succeeded' : 'failed' });
    if (outcome.kind !== 'success') failuresTotal.inc({ reason: failureReason(outcome) });
    if (next !== undefined) this.wakeAfter(next - now);
    if (target.webhook && outcome.kind !== 'abandon')
      await this.updateWebhookHealth(target.webhook, outcome, now);
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
