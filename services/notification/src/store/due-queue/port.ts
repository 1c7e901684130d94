/** A pending delivery in the due queue: its host (for per-host fairness) and when it is due (ms). */
export interface DueEntry {
  id: string;
  host: string;
  dueAt: number;
}

/**
 * A pending delivery that waits its turn in a lane: one webhook's deliveries of one event key,
 * sent one after the other in the order they were appended.
 */
export interface LaneEntry extends DueEntry {
  lane: string;
}

/** An entry taken by a claim: held until `lease` (ms), which is also the claim's token. */
export interface ClaimedEntry {
  id: string;
  host: string;
  lease: number;
}

/** How many more entries of each host one claim may take; hosts not listed may take `other`. */
export interface HostRoom {
  hosts: ReadonlyMap<string, number>;
  other: number;
}

export interface ClaimRequest {
  now: number;
  /** Due entries looked at, at most (postponed ones included). */
  limit: number;
  leaseUntil: number;
  room: HostRoom;
  /** Due entries of hosts without room are due again then, not claimed. */
  postponeUntil: number;
}

/** The end of a claim: the entry leaves the queue, or is due again at `next` (a retry, a hand-back). */
export interface Settlement {
  id: string;
  host: string;
  lease: number;
  next?: number;
  /**
   * The delivery's lane, when it is done with (succeeded or finally failed): it leaves the lane
   * and the next one falls due (see advanceLane), in the same step as the settlement.
   */
  lane?: string;
}

/**
 * The due queue: every pending delivery of the log by the time it is due, and the claims on
 * them. Claiming moves an entry's due time to the claim's lease, so an entry whose claimant died
 * falls due again when the lease ends; the lease is the claim's token, so only the claimant
 * settles it. The delivery log stays the record: a queue that was lost (a Redis restarted without
 * its data) says so (`complete` false) and is rebuilt from the log's pending deliveries.
 */
export interface DueQueue {
  /** Adds entries, or moves existing ones to the given due time unless keepExisting. */
  schedule(entries: DueEntry[], options?: { keepExisting?: boolean }): Promise<void>;
  /**
   * Claims due entries, earliest first, within each host's room, until leaseUntil; says how many
   * due entries were postponed for want of room.
   */
  claim(request: ClaimRequest): Promise<{ claimed: ClaimedEntry[]; postponed: number }>;
  /**
   * Ends claims; a settlement whose lease no longer holds (the entry was claimed again) leaves
   * the queue as it is. A settlement's lane is advanced (at `now`) whether its lease holds or not:
   * the delivery is done.
   */
  settle(settlements: Settlement[], now?: number): Promise<void>;
  /**
   * Appends entries to their lanes, in the given order; an entry that heads its lane is due at
   * dueAt, the others wait in the lane (not in the queue). An id already in its lane stays where
   * it is (a repeated event), and goes back in the queue at dueAt if it heads its lane and its
   * entry there was lost (a claim on it dropped before its batch logged it). Returns the ids that
   * head their lanes now (a caller that gave a head its lease as dueAt holds it claimed).
   */
  appendToLanes(entries: LaneEntry[]): Promise<string[]>;
  /**
   * Each entry whose lane is empty (earlier entries of this call count) becomes its head, due at
   * dueAt; the others are left out, not appended. Returns the ids that became heads: a caller
   * that gave them its lease as dueAt holds them claimed, and may log them after their attempt.
   */
  headEmptyLanes(entries: LaneEntry[]): Promise<string[]>;
  /**
   * Ends claims on entries whose deliveries are not in the log. An entry that headEmptyLanes did
   * not make a head leaves the queue (nothing to send). Such a head may still be logged (its
   * holder died and its events are being handled again): the first time it is due again at
   * retryAt, the second its lane moves on (at `now`), so a delivery that will never be logged
   * (its event no longer makes it) does not hold its lane up.
   */
  releaseUnlogged(claims: ClaimedEntry[], retryAt: number, now?: number): Promise<void>;
  /**
   * Delivery `id` of `lane` is done (succeeded or finally failed): it leaves the lane, and if it
   * headed it the next one falls due at `now`.
   */
  advanceLane(lane: string, id: string, now: number): Promise<void>;
  /** Entries in the queue, due or claimed. */
  size(): Promise<number>;
  /** False until the queue was filled from the delivery log (after it was lost, or never built). */
  complete(): Promise<boolean>;
  /** Takes on the rebuild for at most ttlMs; false while another instance has it. */
  startRebuild(ttlMs: number): Promise<boolean>;
  /** The rebuild is done: the queue holds every pending delivery of the log. */
  finishRebuild(): Promise<void>;
  close(): Promise<void>;
}
