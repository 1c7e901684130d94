import type { AttemptRecord, DeliveryRecord, DeliveryStatus } from '../model';

export interface AttemptResult {
  attempt: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt?: string;
  url: string;
}

/** Newest first, at most limit; by target (a webhook id or CALLBACK_TARGET) and/or by event. */
export interface DeliveryFilter {
  webhookId?: string;
  eventId?: string;
  limit: number;
}

export interface DeliveryStore {
  /** Creates the delivery unless one with the same (organization, dedupeKey) exists; returns the stored one. */
  createIfAbsent(delivery: DeliveryRecord): Promise<{ delivery: DeliveryRecord; created: boolean }>;
  get(organization: string, id: string): Promise<DeliveryRecord | undefined>;
  /** Newest first; webhookId filters to one target. */
  list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]>;
  /** Claims up to limit pending deliveries due at now and not claimed, until leaseUntil. */
  claimDue(now: Date, limit: number, leaseUntil: Date): Promise<DeliveryRecord[]>;
  /** Claims one delivery if it is pending, due and unclaimed. */
  claim(organization: string, id: string, now: Date, leaseUntil: Date): Promise<DeliveryRecord | undefined>;
  /** Gives a claim back without an attempt (e.g. its host is at its concurrency limit). */
  release(organization: string, id: string): Promise<void>;
  /** Appends an attempt, sets the new status and next attempt time, drops the claim. */
  recordAttempt(organization: string, id: string, result: AttemptResult): Promise<DeliveryRecord | undefined>;
  countPending(): Promise<number>;
}

function isClaimable(delivery: DeliveryRecord, now: Date): boolean {
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return false;
  if (Date.parse(delivery.nextAttemptAt) > now.getTime()) return false;
  return !delivery.leaseUntil || Date.parse(delivery.leaseUntil) <= now.getTime();
}

export class InMemoryDeliveryStore implements DeliveryStore {
  /** Insertion order doubles as creation order (newest last). */
  private readonly deliveries = new Map<string, DeliveryRecord>();
  private readonly byDedupeKey = new Map<string, string>();

  async createIfAbsent(delivery: DeliveryRecord): Promise<{ delivery: DeliveryRecord; created: boolean }> {
    const key = `${delivery.organization}\u0000${delivery.dedupeKey}`;
    const existingId = this.byDedupeKey.get(key);
    if (existingId) return { delivery: structuredClone(this.deliveries.get(existingId)!), created: false };
    this.byDedupeKey.set(key, delivery.id);
    this.deliveries.set(delivery.id, structuredClone(delivery));
    return { delivery: structuredClone(delivery), created: true };
  }

  async get(organization: string, id: string): Promise<DeliveryRecord | undefined> {
    const found = this.deliveries.get(id);
    return found && found.organization === organization ? structuredClone(found) : undefined;
  }

  async list(organization: string, options: DeliveryFilter): Promise<DeliveryRecord[]> {
    const matches = [...this.deliveries.values()].filter(
      (d) =>
        d.organization === organization &&
        (!options.webhookId || d.webhookId === options.webhookId) &&
        (!options.eventId || d.eventId === options.eventId),
    );
    return matches.reverse().slice(0, options.limit).map((d) => structuredClone(d));
  }

  async claimDue(now: Date, limit: number, leaseUntil: Date): Promise<DeliveryRecord[]> {
    const claimed: DeliveryRecord[] = [];
    for (const delivery of this.deliveries.values()) {
      if (claimed.length >= limit) break;
      if (!isClaimable(delivery, now)) continue;
      delivery.leaseUntil = leaseUntil.toISOString();
      claimed.push(structuredClone(delivery));
    }
    return claimed;
  }

  async claim(organization: string, id: string, now: Date, leaseUntil: Date): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization || !isClaimable(delivery, now)) return undefined;
    delivery.leaseUntil = leaseUntil.toISOString();
    return structuredClone(delivery);
  }

  async release(organization: string, id: string): Promise<void> {
    const delivery = this.deliveries.get(id);
    if (delivery && delivery.organization === organization) delete delivery.leaseUntil;
  }

  async recordAttempt(organization: string, id: string, result: AttemptResult): Promise<DeliveryRecord | undefined> {
    const delivery = this.deliveries.get(id);
    if (!delivery || delivery.organization !== organization) return undefined;
    delivery.attempts.push(structuredClone(result.attempt));
    delivery.status = result.status;
    delivery.url = result.url;
    delivery.nextAttemptAt = result.nextAttemptAt;
    delete delivery.leaseUntil;
    return structuredClone(delivery);
  }

  async countPending(): Promise<number> {
    let pending = 0;
    for (const delivery of this.deliveries.values()) if (delivery.status === 'pending') pending++;
    return pending;
  }
}
