import Denque from 'denque';
import type { DeliveryRecord, WebhookRecord } from '../model';
import type { ClaimedEntry, HostRoom } from '../store/due-queue/port';
import type { FirstAttempt } from './engine';
import { hostKey } from './host-key';

/**
 * A delivery waiting for a slot, with its webhook when the caller just read it: a new delivery's
 * first attempt (not logged yet), or one claimed from the due queue.
 */
export interface QueuedAttempt {
  delivery: DeliveryRecord;
  webhook?: WebhookRecord;
  first?: FirstAttempt;
  claim?: ClaimedEntry;
}

export interface AttemptQueueLimits {
  /** Attempts in flight per destination host, so one slow receiver cannot take every slot. */
  perHost: number;
  /** Attempts sending in total. */
  overall: number;
  /** Attempts started and not finished in total: sending, or sent and having their outcome recorded. */
  unfinished: number;
  /** Attempts waiting per host at most; past it, new work for the host stays in the durable schedule. */
  waitingPerHost: number;
  /** Attempts waiting per host however slow it has been lately (a new host starts with this). */
  minWaitingPerHost: number;
  /**
   * How long a waiting attempt may wait: a host is given as much waiting work as it started in
   * this long at its recent rate, so what waits starts before its claim runs short.
   */
  admissionWindowMs: number;
}

/** How often a host's start rate is brought up to date; the rate is averaged over a few of these. */
const RATE_PERIOD_MS = 1000;

/** Attempts a host started lately, per second (an exponentially weighted average). */
class StartRate {
  private started = 0;
  private periodStart = Date.now();
  perSecond = 0;

  count(now: number): void {
    this.started++;
    this.update(now);
  }

  update(now: number): number {
    const elapsed = now - this.periodStart;
    if (elapsed >= RATE_PERIOD_MS) {
      this.perSecond = 0.5 * this.perSecond + (0.5 * this.started * 1000) / elapsed;
      this.started = 0;
      this.periodStart = now;
    }
    return this.perSecond;
  }
}

/**
 * Claimed deliveries waiting for a slot, one FIFO per host. Hosts take turns for free slots, so a
 * host that is down or slow holds at most its own per-host slots and everyone else keeps going.
 */
export class AttemptQueue {
  /** Per host, oldest first; the map's order is the hosts' turn order. */
  private readonly waiting = new Map<string, Denque<QueuedAttempt>>();
  private readonly active = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  /** Attempts that still talk to their host (started, hostDone not called yet). */
  private sending = 0;
  private readonly rates = new Map<string, StartRate>();
  private waitingTotal = 0;

  constructor(
    private readonly limits: AttemptQueueLimits,
    /** Runs an attempt; it calls hostDone once it no longer talks to the host (e.g. before recording the outcome). */
    private readonly run: (item: QueuedAttempt, hostDone: () => void) => Promise<void>,
    /** Called when a host's waiting work falls to half its limit: there is room to take more. */
    private readonly onRoom: (host: string) => void = () => {},
  ) {}

  /** Waiting attempts the host is given: what it starts within the admission window, bounded. */
  waitingLimit(host: string): number {
    const perSecond = this.rates.get(host)?.update(Date.now()) ?? 0;
    const recent = Math.floor((perSecond * this.limits.admissionWindowMs) / 1000);
    return Math.min(this.limits.waitingPerHost, Math.max(this.limits.minWaitingPerHost, recent));
  }

  /** How much more waiting work each host in use can take, and a host not in use (for a claim). */
  room(): HostRoom {
    const hosts = new Map<string, number>();
    for (const host of new Set([...this.waiting.keys(), ...this.active.keys()]))
      hosts.set(host, Math.max(0, this.waitingLimit(host) - (this.waiting.get(host)?.length ?? 0)));
    return { hosts, other: this.limits.minWaitingPerHost };
  }

  submit(item: QueuedAttempt): void {
    const host = hostKey(item.delivery.url);
    const queue = this.waiting.get(host) ?? new Denque<QueuedAttempt>();
    queue.push(item);
    this.waiting.set(host, queue);
    this.waitingTotal++;
    this.pump();
  }

  /** Attempts waiting for a slot (all hosts). */
  size(): number {
    return this.waitingTotal;
  }

  /** Removes and returns everything waiting (on stop, to hand the claims back). */
  takeWaiting(): QueuedAttempt[] {
    const items = [...this.waiting.values()].flatMap((queue) => queue.toArray());
    this.waiting.clear();
    this.waitingTotal = 0;
    return items;
  }

  /** Resolves once no attempt is in flight. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private pump(): void {
    while (this.sending < this.limits.overall && this.running.size < this.limits.unfinished) {
      const host = this.nextHost();
      if (host === undefined) return;
      const queue = this.waiting.get(host)!;
      const item = queue.shift()!;
      this.waitingTotal--;
      // The host goes to the back of the turn order.
      this.waiting.delete(host);
      if (queue.length > 0) this.waiting.set(host, queue);
      this.start(host, item);
      if (queue.length <= Math.floor(this.waitingLimit(host) / 2)) this.onRoom(host);
    }
  }

  private nextHost(): string | undefined {
    for (const host of this.waiting.keys())
      if ((this.active.get(host) ?? 0) < this.limits.perHost) return host;
    return undefined;
  }

  /**
   * The host's slot and a sending slot are held until the attempt is done with the host; an
   * unfinished slot until it ends (its outcome recorded, which can take longer when the store is slow).
   */
  private start(host: string, item: QueuedAttempt): void {
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    this.sending++;
    let rate = this.rates.get(host);
    if (!rate) {
      // Forget the rates of hosts with nothing waiting or running (bounded by the hosts in use).
      if (this.rates.size >= 2 * this.active.size + 1000)
        for (const known of this.rates.keys())
          if (!this.active.has(known) && !this.waiting.has(known)) this.rates.delete(known);
      rate = new StartRate();
      this.rates.set(host, rate);
    }
    rate.count(Date.now());
    let holdsHost = true;
    const hostDone = () => {
      if (!holdsHost) return;
      holdsHost = false;
      this.sending--;
      const left = (this.active.get(host) ?? 1) - 1;
      if (left === 0) this.active.delete(host);
      else this.active.set(host, left);
      this.pump();
    };
    const running: Promise<void> = this.run(item, hostDone).finally(() => {
      this.running.delete(running);
      hostDone();
      this.pump();
    });
    this.running.add(running);
  }
}
