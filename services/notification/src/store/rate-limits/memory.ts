import type { RateLimits } from './port';

/** Keys and reservations kept at most before the expired ones are dropped. */
const SWEEP_AT = 10_000;
/** A reservation not taken this long after its slot is forgotten (its delivery is gone). */
const RESERVATION_GRACE_MS = 60_000;

/** Send slots in this process (embedded mode, tests, or a single replica without Redis). */
export class InMemoryRateLimits implements RateLimits {
  /** Per key, the time the next slot is free (the "theoretical arrival time" of GCRA). */
  private readonly next = new Map<string, number>();
  private readonly reserved = new Map<string, number>();

  async take(key: string, id: string, perSecond: number, now: number): Promise<number> {
    const reservation = `${key}\u0000${id}`;
    const slot = this.reserved.get(reservation);
    if (slot !== undefined) {
      if (slot > now) return slot;
      this.reserved.delete(reservation);
      return 0;
    }
    this.sweep(now);
    const free = Math.max(this.next.get(key) ?? 0, now);
    this.next.set(key, free + 1000 / perSecond);
    if (free <= now) return 0;
    this.reserved.set(reservation, free);
    return free;
  }

  private sweep(now: number): void {
    if (this.next.size + this.reserved.size < SWEEP_AT) return;
    for (const [key, free] of this.next) if (free < now) this.next.delete(key);
    for (const [key, slot] of this.reserved)
      if (slot < now - RESERVATION_GRACE_MS) this.reserved.delete(key);
  }
}
