import { newId, type Logger } from '@switchyard/shared';
import type { NotificationConfig } from '../config';
import { attemptDuration, attemptsTotal, eventToFirstAttempt, failuresTotal, trackPending } from '../metrics';
import { CALLBACK_TARGET, type AttemptRecord, type DeliveryRecord, type WebhookEvent, type WebhookRecord } from '../model';
import type { OrgSigningSecrets } from '../signing/org-secrets';
import { activeSecrets } from '../signing/secrets';
import { signatureHeaders } from '../signing/sign';
import type { UrlPolicy } from '@switchyard/shared';
import type { DeliveryStore } from '../store/delivery-store';
import type { WebhookStore } from '../store/webhook-store';
import { HostLimiter, hostKey } from './host-limiter';
import { postOnce, SendError, type HttpPost, type HttpResponse } from './http-sender';
import { classifyResponse, nextAttemptTime, withJitter, type AttemptOutcome } from './outcome';

export interface NewDelivery {
  organization: string;
  /** A webhook id, or CALLBACK_TARGET for a request's webhookUrl. */
  webhookId: string;
  eventId: string;
  event: WebhookEvent;
  occurredAt: string;
  url: string;
  /** Serialized once; these bytes are signed and sent on every attempt. */
  payload: string;
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
  | { url: string; abandon: string; webhook?: WebhookRecord };

const SWEEP_BATCH = 500;
const LEASE_MARGIN_MS = 30_000;
/** Claimed deliveries kept waiting per host slot when the host is at its limit. */
const PARKED_PER_SLOT = 4;

/**
 * Sends deliveries with retries. Work comes from the store (a sweeper picks due deliveries, so
 * pending ones resume after a restart once the store is durable) plus a fast path that attempts
 * a new delivery at once. Claims (leases) in the store keep an attempt from running twice.
 */
export class DeliveryEngine {
  private readonly limiter: HostLimiter;
  private readonly post: (request: HttpPost) => Promise<HttpResponse>;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly wakeTimers = new Set<NodeJS.Timeout>();
  /** Per host: claimed deliveries waiting for a free slot (they keep their lease). */
  private readonly parked = new Map<string, DeliveryRecord[]>();
  private sweepTimer?: NodeJS.Timeout;
  /** The sweep running now, if any (stop waits for it so no claim outlives the stores). */
  private sweeping?: Promise<void>;
  private sweepAgain = false;
  private deferred = false;
  private stopping = false;
  private untrackPending?: () => void;

  constructor(private readonly deps: DeliveryEngineDeps) {
    this.limiter = new HostLimiter(deps.config.maxConcurrencyPerHost);
    this.post = deps.post ?? postOnce;
  }

  start(): void {
    this.untrackPending = trackPending(() => this.deps.deliveries.countPending());
    this.sweepTimer = setInterval(() => this.requestSweep(), this.deps.config.sweepIntervalMs);
    this.sweepTimer.unref();
    this.requestSweep();
  }

  /** Stops picking work and waits for attempts in flight (each bounded by the attempt timeout). */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.sweepTimer);
    for (const timer of this.wakeTimers) clearTimeout(timer);
    this.wakeTimers.clear();
    await this.sweeping;
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    await this.releaseParked();
    this.untrackPending?.();
  }

  /** Creates the delivery for (event id, target) unless it exists; attempts it at once when due. */
  async enqueue(input: NewDelivery): Promise<DeliveryRecord> {
    const record = this.newRecord(input, `${input.eventId}\u0000${input.webhookId}`);
    const { delivery, created } = await this.deps.deliveries.createIfAbsent(record);
    if (created) await this.attemptNowIfDue(delivery);
    return delivery;
  }

  /**
   * A replay (as Svix does it): a new delivery with its own attempts and retries, the same body
   * and the same webhook-id (message id), so receivers that already processed it can dedupe.
   */
  async replay(original: DeliveryRecord, url: string): Promise<DeliveryRecord> {
    const replayId = newId('dlv');
    const record: DeliveryRecord = {
      ...this.newRecord({ ...original, url }, `replay\u0000${replayId}`),
      id: replayId,
      messageId: original.messageId,
      replayOf: original.id,
    };
    const { delivery } = await this.deps.deliveries.createIfAbsent(record);
    await this.attemptNowIfDue(delivery);
    return delivery;
  }

  private newRecord(input: NewDelivery, dedupeKey: string): DeliveryRecord {
    const now = Date.now();
    return {
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
      nextAttemptAt: new Date(now + withJitter(this.deps.config.retrySchedule[0] ?? 0)).toISOString(),
    };
  }

  private async attemptNowIfDue(delivery: DeliveryRecord): Promise<void> {
    if (this.stopping) return;
    const due = Date.parse(delivery.nextAttemptAt ?? '') - Date.now();
    if (due > 0) {
      this.wakeAfter(due);
      return;
    }
    const claimed = await this.deps.deliveries.claim(delivery.organization, delivery.id, new Date(), this.leaseUntil());
    if (claimed) await this.launch(claimed);
  }

  private leaseUntil(): Date {
    return new Date(Date.now() + this.deps.config.timeoutMs + LEASE_MARGIN_MS);
  }

  /** Runs a sweep soon for retries due before the next regular sweep. */
  private wakeAfter(delayMs: number): void {
    if (this.stopping || delayMs >= this.deps.config.sweepIntervalMs) return;
    const timer = setTimeout(() => {
      this.wakeTimers.delete(timer);
      this.requestSweep();
    }, delayMs + 1);
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
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'delivery sweep failed'))
      .finally(() => {
        this.sweeping = undefined;
        if (this.sweepAgain) {
          this.sweepAgain = false;
          this.requestSweep();
        }
      });
  }

  private async sweep(): Promise<void> {
    const claimed = await this.deps.deliveries.claimDue(new Date(), SWEEP_BATCH, this.leaseUntil());
    let launched = 0;
    for (const delivery of claimed) if (await this.launch(delivery)) launched++;
    // A full batch means more may be due; hosts at their limit are retried when a slot frees.
    if (claimed.length === SWEEP_BATCH && launched > 0) this.sweepAgain = true;
  }

  /**
   * Starts the attempt if its host has a free slot, else parks it for the next free slot; when
   * the host's parking is full too, gives the claim back (a later sweep picks it up again).
   */
  private async launch(delivery: DeliveryRecord): Promise<boolean> {
    const host = hostKey(delivery.url);
    if (!this.stopping && this.limiter.tryAcquire(host)) {
      this.run(host, delivery);
      return true;
    }
    if (!this.stopping && this.park(host, delivery)) return true;
    this.deferred = true;
    await this.deps.deliveries.release(delivery.organization, delivery.id);
    return false;
  }

  private park(host: string, delivery: DeliveryRecord): boolean {
    const queue = this.parked.get(host) ?? [];
    if (queue.length >= this.deps.config.maxConcurrencyPerHost * PARKED_PER_SLOT) return false;
    queue.push(delivery);
    this.parked.set(host, queue);
    return true;
  }

  /** Runs one attempt in a slot the caller acquired; a freed slot goes to the host's parked work first. */
  private run(host: string, delivery: DeliveryRecord): void {
    const run: Promise<void> = this.attempt(delivery)
      .catch((error: unknown) => this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'delivery attempt failed'))
      .finally(() => {
        this.limiter.release(host);
        this.inFlight.delete(run);
        this.launchParked(host);
        // Sweeping only once the host's parked work is gone keeps a saturated host from causing a sweep per attempt.
        if (this.deferred && !this.parked.has(host)) {
          this.deferred = false;
          this.requestSweep();
        }
      });
    this.inFlight.add(run);
  }

  private launchParked(host: string): void {
    const queue = this.parked.get(host);
    while (queue && queue.length > 0 && !this.stopping && this.limiter.tryAcquire(host)) {
      const next = queue.shift()!;
      // Only attempt while the claim still covers a whole attempt; otherwise hand it back.
      if (Date.parse(next.leaseUntil ?? '') - Date.now() > this.deps.config.timeoutMs) {
        this.run(host, next);
        continue;
      }
      this.limiter.release(host);
      this.deferred = true;
      this.deps.deliveries.release(next.organization, next.id).catch((error: unknown) => this.deps.logger.error({ err: error }, 'release failed'));
    }
    if (queue && queue.length === 0) this.parked.delete(host);
  }

  private async releaseParked(): Promise<void> {
    const waiting = [...this.parked.values()].flat();
    this.parked.clear();
    for (const delivery of waiting) await this.deps.deliveries.release(delivery.organization, delivery.id);
  }

  private async attempt(delivery: DeliveryRecord): Promise<void> {
    if (delivery.attempts.length === 0 && !delivery.replayOf) {
      eventToFirstAttempt.observe(Math.max(0, Date.now() - Date.parse(delivery.occurredAt)) / 1000);
    }
    const target = await this.target(delivery);
    const { attempt, outcome } =
      'abandon' in target ? abandoned(target.abandon) : await this.send(delivery, target.url, target.secrets);
    await this.record(delivery, target, attempt, outcome);
  }

  /** Where and with which secrets to send: the webhook's current URL and secrets, or the org's. */
  private async target(delivery: DeliveryRecord): Promise<Target> {
    if (delivery.webhookId === CALLBACK_TARGET) {
      return { url: delivery.url, secrets: await this.deps.orgSecrets.active(delivery.organization) };
    }
    const webhook = await this.deps.webhooks.get(delivery.organization, delivery.webhookId);
    if (!webhook) return { url: delivery.url, abandon: 'webhook was deleted' };
    if (!webhook.enabled) {
      return { url: webhook.url, webhook, abandon: `webhook is disabled${webhook.disabledReason ? `: ${webhook.disabledReason}` : ''}` };
    }
    return { url: webhook.url, secrets: activeSecrets(webhook), webhook };
  }

  private async send(delivery: DeliveryRecord, url: string, secrets: string[]): Promise<{ attempt: AttemptRecord; outcome: Outcome }> {
    const attemptedAt = new Date().toISOString();
    const started = Date.now();
    // Checked again at send time: DNS may have changed since registration.
    const check = await this.deps.policy.check(url);
    if (!check.allowed) {
      const error = `destination refused: ${check.reason}`;
      return { attempt: attemptRecord(attemptedAt, 0, 0, '', error), outcome: { kind: 'failure', reason: 'destination_refused', error } };
    }
    const body = Buffer.from(delivery.payload, 'utf8');
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'Switchyard-Webhooks/1.0',
      ...signatureHeaders(secrets, delivery.messageId, Math.floor(Date.now() / 1000), body),
    };
    try {
      const response = await this.post({ url: check.url, address: check.addresses[0]!, headers, body, timeoutMs: this.deps.config.timeoutMs });
      const durationMs = Date.now() - started;
      attemptDuration.observe(durationMs / 1000);
      const outcome = classifyResponse(response.statusCode, response.headers);
      const error = outcome.kind === 'failure' ? outcome.error : outcome.kind === 'gone' ? 'HTTP 410 Gone' : '';
      return { attempt: attemptRecord(attemptedAt, response.statusCode, durationMs, response.body, error), outcome };
    } catch (caught) {
      const durationMs = Date.now() - started;
      const kind = caught instanceof SendError ? caught.kind : 'network';
      const error = caught instanceof Error ? caught.message : String(caught);
      return { attempt: attemptRecord(attemptedAt, 0, durationMs, '', error), outcome: { kind: 'failure', reason: kind, error } };
    }
  }

  private async record(delivery: DeliveryRecord, target: Target, attempt: AttemptRecord, outcome: Outcome): Promise<void> {
    const now = Date.now();
    const next =
      outcome.kind === 'failure'
        ? nextAttemptTime(this.deps.config.retrySchedule, delivery.attempts.length + 1, now, outcome.retryAfterMs)
        : undefined;
    const status = outcome.kind === 'success' ? 'succeeded' : next === undefined ? 'failed' : 'pending';
    await this.deps.deliveries.recordAttempt(delivery.organization, delivery.id, {
      attempt,
      status,
      nextAttemptAt: next === undefined ? undefined : new Date(next).toISOString(),
      url: target.url,
    });
    attemptsTotal.inc({ outcome: outcome.kind === 'success' ? 'succeeded' : 'failed' });
    if (outcome.kind !== 'success') failuresTotal.inc({ reason: failureReason(outcome) });
    if (next !== undefined) this.wakeAfter(next - now);
    if (target.webhook && outcome.kind !== 'abandon') await this.updateWebhookHealth(target.webhook, outcome, now);
  }

  /** 410 disables at once; continuous failure for disableAfterMs disables; a success resets. */
  private async updateWebhookHealth(webhook: WebhookRecord, outcome: AttemptOutcome, now: number): Promise<void> {
    const webhooks = this.deps.webhooks;
    const updatedAt = new Date(now).toISOString();
    if (outcome.kind === 'success') {
      if (webhook.failingSince) await webhooks.update(webhook.organization, webhook.id, { failingSince: undefined });
      return;
    }
    if (outcome.kind === 'gone') {
      await this.disable(webhook, 'endpoint answered 410 Gone', updatedAt);
      return;
    }
    if (!webhook.failingSince) {
      await webhooks.update(webhook.organization, webhook.id, { failingSince: updatedAt });
    } else if (now - Date.parse(webhook.failingSince) >= this.deps.config.disableAfterMs) {
      await this.disable(webhook, `failing continuously since ${webhook.failingSince}`, updatedAt);
    }
  }

  private async disable(webhook: WebhookRecord, reason: string, updatedAt: string): Promise<void> {
    await this.deps.webhooks.update(webhook.organization, webhook.id, { enabled: false, disabledReason: reason, updatedAt });
    this.deps.logger.warn({ webhookId: webhook.id, organization: webhook.organization, reason }, 'webhook disabled');
    await this.deps.onWebhookDisabled?.(webhook, reason, updatedAt);
  }
}

function attemptRecord(attemptedAt: string, statusCode: number, durationMs: number, responseBody: string, error: string): AttemptRecord {
  return { attemptedAt, statusCode, durationMs, responseBody, error };
}

function abandoned(reason: string): { attempt: AttemptRecord; outcome: Outcome } {
  return { attempt: attemptRecord(new Date().toISOString(), 0, 0, '', reason), outcome: { kind: 'abandon', reason: 'webhook_disabled', error: reason } };
}

function failureReason(outcome: Exclude<Outcome, { kind: 'success' }>): string {
  if (outcome.kind === 'gone') return 'gone';
  return outcome.reason;
}
