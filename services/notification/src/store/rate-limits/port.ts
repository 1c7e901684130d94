/**
 * Send slots of rate-limited webhooks, shared by the replicas: at most `perSecond` deliveries
 * per second to one webhook, spaced evenly (one every 1000 / perSecond ms, no burst), so that no
 * window of a second ever holds more. A delivery that cannot go now gets the next free slot
 * reserved for it: taken again at that time it goes, on whichever replica claims it then.
 */
export interface RateLimits {
  /**
   * The slot of delivery `id` under limit `key`: 0 when it may be sent now (its reservation, if
   * any, is used up), else the time (ms) of the slot reserved for it, to take again then.
   */
  take(key: string, id: string, perSecond: number, now: number): Promise<number>;
}
