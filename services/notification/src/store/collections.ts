import type { Collection, Db, Document } from 'mongodb';
import { ensureExpiryIndex, isDuplicateKeyError } from '@switchyard/shared';

/** Collection names of the notification database. */
export const Collections = {
  webhooks: 'webhooks',
  /** The delivery log (what is due lives in the due queue: Redis, see store/due-queue). */
  deliveries: 'deliveries',
  signingSecrets: 'signing_secrets',
  /** One entry per usage.recorded event (_id = event id): the event-sourced ledger. */
  usageLedger: 'usage_ledger',
  /** Totals per organization and month, by model, by endpoint and by day, projected from the ledger. */
  usageProjection: 'usage_projection',
  /** One journal per ledger batch being projected (_id = batch id); removed once it is applied. */
  usageBatches: 'usage_batches',
  usageThresholds: 'usage_thresholds',
  organizationPolicies: 'organization_policies',
  /** Organizations' own event types with their schema versions. */
  eventTypes: 'event_types',
  /** Consumed events sent to the dead-letter topic (_id = organization and event id), for a while. */
  rejectedEvents: 'rejected_events',
  /** Recent events fanned out (_id = organization and event id), kept EVENT_RETENTION (TTL). */
  events: 'events',
  /** One document per one-time data migration done (_id = its name). */
  migrations: 'migrations',
} as const;

/**
 * Indexes, created at start (createIndex is idempotent). _id carries a document's identity where
 * it can (a delivery's _id is its id). Unique indexes carry identity, so they also arbitrate
 * between replicas.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  const specs: Array<[string, Document, { unique?: boolean; name: string }]> = [
    [Collections.webhooks, { id: 1 }, { unique: true, name: 'webhook_id' }],
    [Collections.webhooks, { organization: 1, createdAt: 1 }, { name: 'by_organization' }],
    [
      Collections.deliveries,
      { organization: 1, webhookId: 1, createdAt: -1 },
      { name: 'by_target' },
    ],
    [Collections.deliveries, { organization: 1, eventId: 1 }, { name: 'by_event' }],
    [Collections.signingSecrets, { organization: 1 }, { unique: true, name: 'organization' }],
    [Collections.usageBatches, { writtenAt: 1 }, { name: 'by_age' }],
    // The request log (ListUsageCalls): an organization's calls, newest first.
    [Collections.usageLedger, { organization: 1, occurredAt: -1 }, { name: 'by_time' }],
    // Only for months counted before totals listed their keys; every other read is by _id.
    [Collections.usageProjection, { organization: 1, kind: 1, period: 1 }, { name: 'by_period' }],
    [
      Collections.usageThresholds,
      { organization: 1, period: 1, share: 1 },
      { unique: true, name: 'threshold' },
    ],
    [Collections.eventTypes, { organization: 1, name: 1 }, { unique: true, name: 'event_type' }],
    // Recent events, newest first (the cursor is (receivedAt, id)); the filters narrow that scan.
    [Collections.events, { organization: 1, receivedAt: -1, id: -1 }, { name: 'by_time' }],
  ];
  const expiring: string[] = [Collections.rejectedEvents, Collections.events];
  const collections = new Set([...specs.map(([collection]) => collection), ...expiring]);
  // One collection's indexes one after the other, the collections side by side: a start (a
  // restart after a kill -9 too) waits for the slowest collection, not for the sum.
  await Promise.all(
    [...collections].map(async (name) => {
      const collection = db.collection(name);
      for (const [, keys, options] of specs.filter(([c]) => c === name))
        await collection.createIndex(keys, options);
      if (expiring.includes(name)) await ensureExpiryIndex(collection, 'expiresAt', 'expiry');
      if (name === Collections.deliveries) await dropObsoleteIdentity(db);
    }),
  );
}

/**
 * A delivery's identity is its _id now (derived from its event and target); the unique index on
 * the dedupe key that older versions wrote would refuse every delivery written without one.
 */
async function dropObsoleteIdentity(db: Db): Promise<void> {
  const deliveries = db.collection(Collections.deliveries);
  const indexes = await deliveries.indexes();
  if (indexes.some((index) => index.name === 'delivery_identity'))
    await deliveries.dropIndex('delivery_identity');
}

/** A stored document without Mongo's _id. */
export function withoutId<T>(doc: (T & { _id?: unknown }) | null): T | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return rest as T;
}

export type { Collection };

/** Inserts unless the unique key exists already; returns whether this call inserted. */
export async function insertIgnoringDuplicate(insert: () => Promise<unknown>): Promise<boolean> {
  try {
    await insert();
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
