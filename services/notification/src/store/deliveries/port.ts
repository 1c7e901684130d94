import type { AttemptRecord, DeliveryRecord, DeliveryState, DeliveryStatus } from '../../model';

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
  state?: DeliveryState;
  /** Created at or after this ISO time. */
  since?: string;
  /** Created before this ISO time. */
  until?: string;
  limit: number;
}

/** A webhook's deliveries created in a window, counted by state. */
export type DeliveryCounts = Record<DeliveryState, number>;

/** What the due queue is rebuilt from: a pending delivery's id, URL and next attempt time. */
export type PendingDelivery = Pick<
  DeliveryRecord,
  'id' | 'url' | 'nextAttemptAt' | 'lane' | 'createdAt'
>;

/**
 * The delivery log: every delivery with its attempts, written in batches. A delivery is written
 * once its first attempt is known (or, when that takes long, as pending); later attempts are
 * appended to it. What is due and who is attempting it lives in the due queue, not here.
 */
export interface DeliveryStore {
  /**
   * Writes new deliveries in one write per batch; a delivery already logged (same id: a repeated
   * event) is left as it is. Rejects if any could not be written.
   */
  insert(deliveries: DeliveryRecord[]): Promise<void>;
  get(organization: string, id: string): Promise<DeliveryRecord | undefined>;
  /** The logged deliveries among ids, of any organization (what due entries refer to). */
  getMany(ids: string[]): Promise<DeliveryRecord[]>;
  /** Newest first; webhookId filters to one target. */
  list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]>;
  /**
   * Appends each attempt and sets the new status and next attempt time, in one write for all.
   * An attempt that ends on a delivery no longer pending (its retries were cancelled while it
   * was out, or another replica finished it) is appended once; it only changes the status to
   * succeeded. Rejects if any could not be written (the due queue keeps those claimed: they are
   * attempted again once the lease ends, a duplicate send, never a lost delivery).
   */
  recordAttempts(attempts: AttemptToRecord[]): Promise<void>;
  /**
   * Stops a pending delivery's retries: status failed, cancelledAt set, no next attempt. Returns
   * the delivery as it is after (unchanged when it was not pending), undefined if unknown. Its
   * due-queue entry is dropped when next claimed (the sweep skips what is not pending).
   */
  cancel(organization: string, id: string, at: string): Promise<DeliveryRecord | undefined>;
  /** The webhook's deliveries created in [since, until), by state. */
  count(
    organization: string,
    webhookId: string,
    window: { since?: string; until?: string },
  ): Promise<DeliveryCounts>;
  /** Pending deliveries with an id after `after` (all from ''), in id order, at most limit. */
  pending(after: string, limit: number): Promise<PendingDelivery[]>;
}
