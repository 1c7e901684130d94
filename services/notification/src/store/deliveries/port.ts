import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../../model';

export interface AttemptResult {
  attempt: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt?: string;
  url: string;
}

/** One attempt to record with others (recordAttempts). */
export interface AttemptToRecord {
  organization: string;
  id: string;
  result: AttemptResult;
}

/** Newest first, at most limit; by target (a webhook id or CALLBACK_TARGET) and/or by event. */
export interface DeliveryFilter {
  webhookId?: string;
  eventId?: string;
  status?: DeliveryStatus;
  /** The event type (invoice_paid...). */
  event?: string;
  limit: number;
}

/** Which due deliveries a sweep should leave for later (their host is saturated): by host key. */
export type HostFilter = (host: string) => boolean;

/**
 * Deliveries (the complete delivery log) and the retry schedule: the pending ones by due time,
 * kept apart from the log so finding due work never reads finished deliveries.
 */
export interface DeliveryStore {
  /** Creates the delivery unless one with the same (organization, dedupeKey) exists; returns the stored one. */
  createIfAbsent(delivery: DeliveryRecord): Promise<{ delivery: DeliveryRecord; created: boolean }>;
  /**
   * Creates, in one write per collection, those deliveries whose identity is new; returns the
   * created ones. A record with leaseUntil is created claimed by this instance (its first attempt
   * starts at once); should this instance die, the schedule hands it out once the lease expires.
   */
  createMany(deliveries: DeliveryRecord[]): Promise<DeliveryRecord[]>;
  get(organization: string, id: string): Promise<DeliveryRecord | undefined>;
  /** Newest first; webhookId filters to one target. */
  list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]>;
  /**
   * Claims up to limit pending deliveries due at now and not claimed, until leaseUntil, earliest
   * first. Due deliveries whose host `skip` refuses are not claimed but moved to `skipUntil`.
   */
  claimDue(
    now: Date,
    limit: number,
    leaseUntil: Date,
    skip?: { host: HostFilter; until: Date },
  ): Promise<DeliveryRecord[]>;
  /** Claims one delivery if it is pending, due and unclaimed. */
  claim(
    organization: string,
    id: string,
    now: Date,
    leaseUntil: Date,
  ): Promise<DeliveryRecord | undefined>;
  /** Gives a claim back without an attempt (e.g. its host is at its limit), due again at dueAt (default now). */
  release(organization: string, id: string, dueAt?: Date): Promise<void>;
  /** Appends an attempt, sets the new status and next attempt time, drops the claim. */
  recordAttempt(
    organization: string,
    id: string,
    result: AttemptResult,
  ): Promise<DeliveryRecord | undefined>;
  /**
   * Records several attempts as recordAttempt does each, in one write per collection for all of
   * them. Rejects if any could not be written; those stay claimed, so they are attempted again
   * once their lease expires (a duplicate send, never a lost delivery).
   */
  recordAttempts(attempts: AttemptToRecord[]): Promise<void>;
  /** Deliveries waiting for a first or further attempt (the size of the schedule). */
  countPending(): Promise<number>;
}

/** When a pending delivery can next be claimed: its next attempt time, or later while claimed. */
export function dueTime(delivery: Pick<DeliveryRecord, 'nextAttemptAt' | 'leaseUntil'>): number {
  const next = Date.parse(delivery.nextAttemptAt ?? '');
  const lease = delivery.leaseUntil ? Date.parse(delivery.leaseUntil) : 0;
  return Math.max(Number.isNaN(next) ? 0 : next, lease);
}
