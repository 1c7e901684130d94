import type { Collection, Db, Document } from 'mongodb';

/** Collection names of the notification database. */
export const Collections = {
  webhooks: 'webhooks',
  deliveries: 'deliveries',
  /** One document per (delivery, attempt number) being attempted: the atomic claim. */
  deliveryClaims: 'delivery_claims',
  signingSecrets: 'signing_secrets',
  /** One entry per usage.recorded event (_id = event id): the event-sourced ledger. */
  usageLedger: 'usage_ledger',
  /** Totals per organization and month, by model, by endpoint and by day, projected from the ledger. */
  usageProjection: 'usage_projection',
  usageThresholds: 'usage_thresholds',
  organizationPolicies: 'organization_policies',
  processedEvents: 'processed_events',
} as const;

/**
 * Indexes, created at start (createIndex is idempotent). Unique indexes carry identity: they are
 * the one write every MongoDB-compatible server (FerretDB included) performs atomically, so they
 * also arbitrate between replicas.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  const specs: Array<[string, Document, { unique?: boolean; name: string }]> = [
    [Collections.webhooks, { id: 1 }, { unique: true, name: 'webhook_id' }],
    [Collections.webhooks, { organization: 1, createdAt: 1 }, { name: 'by_organization' }],
    [Collections.deliveries, { id: 1 }, { unique: true, name: 'delivery_id' }],
    // One delivery per (event id, target); replays get a dedupe key of their own.
    [Collections.deliveries, { organization: 1, dedupeKey: 1 }, { unique: true, name: 'delivery_identity' }],
    [Collections.deliveries, { status: 1, nextAttemptAt: 1 }, { name: 'due' }],
    [Collections.deliveries, { organization: 1, webhookId: 1, createdAt: -1 }, { name: 'by_target' }],
    [Collections.deliveries, { organization: 1, eventId: 1 }, { name: 'by_event' }],
    [Collections.deliveryClaims, { key: 1 }, { unique: true, name: 'claim_key' }],
    [Collections.deliveryClaims, { deliveryId: 1 }, { name: 'by_delivery' }],
    [Collections.signingSecrets, { organization: 1 }, { unique: true, name: 'organization' }],
    [Collections.usageLedger, { applied: 1, appendedAt: 1 }, { name: 'unapplied' }],
    [Collections.usageProjection, { organization: 1, kind: 1, period: 1 }, { name: 'by_period' }],
    [Collections.usageProjection, { organization: 1, kind: 1, key: 1 }, { name: 'by_key' }],
    [Collections.usageThresholds, { organization: 1, period: 1, share: 1 }, { unique: true, name: 'threshold' }],
    [Collections.processedEvents, { organization: 1, eventId: 1 }, { unique: true, name: 'processed_event' }],
  ];
  for (const [collection, keys, options] of specs) await db.collection(collection).createIndex(keys, options);
}

/** A stored document without Mongo's _id. */
export function withoutId<T>(doc: (T & { _id?: unknown }) | null): T | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return rest as T;
}

export type { Collection };
