import { insertMissing, moveLegacyDocuments } from '@switchyard/shared';
import type { Db } from 'mongodb';
import type { Organization } from './organizations/port';
import type { ApiKeyRecord } from './api-keys/port';
import type { TeamRecord } from './teams/port';
import { QUOTA_TALLIES_COLLECTION } from './quota-tallies/mongo';

/**
 * Organizations by `_id` = organization id and keys by `_id` = key hash: an authentication and a
 * policy read are each one lookup by `_id`.
 */
export const GatewayCollections = {
  organizations: 'organizations_by_id',
  apiKeys: 'api_keys_by_hash',
  /** Teams by `_id` = team id. */
  teams: 'teams_by_id',
} as const;
/** The earlier layout (ObjectId `_id`), moved into the collections above at start. */
const LegacyCollections = { organizations: 'organizations', apiKeys: 'api_keys' } as const;

export type OrganizationDocument = Organization & { _id: string };
export type ApiKeyDocument = ApiKeyRecord & { _id: string };
export type TeamDocument = TeamRecord & { _id: string };

/**
 * The unique `_id` carries identity (org id, key hash) and a unique index the key id, so of two
 * concurrent creations one wins. createIndex is idempotent, and so is moving the earlier
 * layout's documents.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  await db
    .collection(QUOTA_TALLIES_COLLECTION)
    .createIndex({ organization: 1, period: 1 }, { name: 'organization_period' });
  const organizations = db.collection<OrganizationDocument>(GatewayCollections.organizations);
  const apiKeys = db.collection<ApiKeyDocument>(GatewayCollections.apiKeys);
  await apiKeys.createIndex({ keyId: 1 }, { unique: true, name: 'key_id' });
  await apiKeys.createIndex({ organization: 1, createdAt: 1 }, { name: 'by_organization' });
  await db
    .collection<TeamDocument>(GatewayCollections.teams)
    .createIndex({ organization: 1, createdAt: 1 }, { name: 'by_organization' });
  await moveLegacyDocuments(db.collection<Organization>(LegacyCollections.organizations), (batch) =>
    insertMissing(
      organizations,
      batch.map(({ _id, ...org }) => ({ ...org, _id: org.id })),
    ),
  );
  await moveLegacyDocuments(db.collection<ApiKeyRecord>(LegacyCollections.apiKeys), (batch) =>
    insertMissing(
      apiKeys,
      batch.map(({ _id, ...record }) => ({ ...record, _id: record.hash })),
    ),
  );
}

/** A stored document without Mongo's _id. */
export function withoutId<T>(doc: (T & { _id?: unknown }) | null): T | undefined {
  if (!doc) return undefined;
  const { _id, ...rest } = doc;
  return rest as T;
}

export const NO_ID = { projection: { _id: 0 } } as const;
