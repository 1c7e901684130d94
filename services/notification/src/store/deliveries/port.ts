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

/** What the due queue is rebuilt from: a pending delivery's id, URL and next attempt time. */
export type PendingDelivery = Pick<DeliveryRecord, 'id' | 'url' | 'nextAttemptAt'>;

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
   * Rejects if any could not be written (the due queue keeps those claimed: they are attempted
   * again once the lease ends, a duplicate send, never a lost delivery).
   */
  recordAttempts(attempts: AttemptToRecord[]): Promise<void>;
  /** Pending deliveries with an id after `after` (all from ''), in id order, at most limit. */
  pending(after: string, limit: number): Promise<PendingDelivery[]>;
}
