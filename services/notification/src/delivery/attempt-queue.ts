import Denque from 'denque';
import type { DeliveryRecord, WebhookRecord } from '../model';
import { hostKey } from './host-key';

/** A claimed delivery waiting for a slot, with its webhook when the caller just read it. */
export interface QueuedAttempt {
  delivery: DeliveryRecord;
  webhook?: WebhookRecord;
}

export interface AttemptQueueLimits {
  /** Attempts in flight per destination host, so one slow receiver cannot take every slot. */
  perHost: number;
  /** Attempts in flight in total. */
  overall: number;
  /** Attempts waiting per host; past it, new work for the host stays in the durable schedule. */
  waitingPerHost: number;
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
  private waitingTotal = 0;

  constructor(
    private readonly limits: AttemptQueueLimits,
    /** Runs an attempt; it calls hostDone once it no longer talks to the host (e.g. before recording the outcome). */
    private readonly run: (item: QueuedAttempt, hostDone: () => void) => Promise<void>,
    /** Called when a host's waiting work falls to half its limit: there is room to take more. */
    private readonly onRoom: (host: string) => void = () => {},
  ) {}

  /** Whether the host can take more waiting work. */
  hasRoom(host: string): boolean {
    return (this.waiting.get(host)?.length ?? 0) < this.limits.waitingPerHost;
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
    while (this.running.size < this.limits.overall) {
      const host = this.nextHost();
      if (host === undefined) return;
      const queue = this.waiting.get(host)!;
      const item = queue.shift()!;
      this.waitingTotal--;
      // The host goes to the back of the turn order.
      this.waiting.delete(host);
      if (queue.length > 0) this.waiting.set(host, queue);
      this.start(host, item);
      if (queue.length === Math.floor(this.limits.waitingPerHost / 2)) this.onRoom(host);
    }
  }

  private nextHost(): string | undefined {
    for (const host of this.waiting.keys())
      if ((this.active.get(host) ?? 0) < this.limits.perHost) return host;
    return undefined;
  }

  /** The host's slot is held until the attempt is done with the host, the overall one until it ends. */
  private start(host: string, item: QueuedAttempt): void {
    this.active.set(host, (this.active.get(host) ?? 0) + 1);
    let holdsHost = true;
    const hostDone = () => {
      if (!holdsHost) return;
      holdsHost = false;
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
