/** How long new deliveries to a host that just failed to answer go the due queue's way. */
const UNREACHABLE_HOLD_MS = 5000;

/**
 * Which hosts new deliveries should not wait for: a host whose last attempt could not reach it
 * (refused, reset, timed out) until it answers again or UNREACHABLE_HOLD_MS passes, and a host
 * that has had attempts out for longer than the stall time without answering any. Their
 * deliveries are logged as pending and sent from the due queue, so a dead endpoint never holds
 * up a partition's next events. A busy host that keeps answering is not held back.
 */
export class HostWatch {
  /** Per host, the start times of attempts out now, oldest first (a Map keeps insertion order). */
  private readonly sending = new Map<string, Map<number, number>>();
  private readonly lastAnswer = new Map<string, number>();
  private readonly unreachableUntil = new Map<string, number>();
  private token = 0;

  constructor(private readonly stallMs: number) {}

  /** An attempt to the host starts; call the returned function when it is done with the host. */
  started(host: string, now = Date.now()): () => void {
    const token = ++this.token;
    const starts = this.sending.get(host) ?? new Map<number, number>();
    starts.set(token, now);
    this.sending.set(host, starts);
    return () => {
      starts.delete(token);
      if (starts.size === 0 && this.sending.get(host) === starts) {
        this.sending.delete(host);
        // Nothing out: what is known of its answers no longer matters.
        this.lastAnswer.delete(host);
      }
    };
  }

  /** The host answered (whatever it said): it is reachable. */
  answered(host: string, now = Date.now()): void {
    this.unreachableUntil.delete(host);
    if (this.sending.has(host)) this.lastAnswer.set(host, now);
  }

  /** No answer came (refused, reset, timed out). */
  unreachable(host: string, now = Date.now()): void {
    this.unreachableUntil.set(host, now + UNREACHABLE_HOLD_MS);
  }

  heldBack(host: string, now = Date.now()): boolean {
    const until = this.unreachableUntil.get(host);
    if (until !== undefined) {
      if (until > now) return true;
      this.unreachableUntil.delete(host);
    }
    const starts = this.sending.get(host);
    if (!starts) return false;
    const oldest: number = starts.values().next().value!;
    return now - Math.max(oldest, this.lastAnswer.get(host) ?? 0) > this.stallMs;
  }
}
