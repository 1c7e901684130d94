import { hash, randomBytes } from 'node:crypto';
import { newId } from '@switchyard/shared';
import type { ApiKeyRecord, ApiKeyStore, KeyScope } from '../store/api-keys/port';

export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function generateApiKey(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** A key is usable until its revocation instant. */
export function isActive(record: ApiKeyRecord, now = Date.now()): boolean {
  return !record.revokedAt || Date.parse(record.revokedAt) > now;
}

/** Stores an existing key (e.g. DEV_API_KEY) by its hash; the returned record never holds the key. */
export async function registerApiKey(
  store: ApiKeyStore,
  key: string,
  organization: string,
  name = '',
  scope: KeyScope = {},
): Promise<ApiKeyRecord> {
  const record: ApiKeyRecord = {
    keyId: newId('key'),
    organization,
    name,
    hash: hashApiKey(key),
    createdAt: new Date().toISOString(),
    ...scope,
  };
  await store.insert(record);
  return record;
}

/** Issues a new key: the returned key is shown once, only its hash is kept. */
export async function issueApiKey(
  store: ApiKeyStore,
  organization: string,
  name = '',
  scope: KeyScope = {},
): Promise<{ key: string; record: ApiKeyRecord }> {
  const key = generateApiKey();
  return { key, record: await registerApiKey(store, key, organization, name, scope) };
}
