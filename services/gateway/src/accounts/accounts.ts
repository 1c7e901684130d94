import { AppError, type Logger } from '@switchyard/shared';
import { issueApiKey } from '../auth/api-keys';
import type { KeyLookup } from '../auth/key-lookup';
import {
  applySettings,
  checkTimeZone,
  DEFAULT_THRESHOLD_SHARES,
  DEFAULT_TIME_ZONE,
  normalizeShares,
  sameSettings,
  type Organization,
  type OrganizationSettings,
  type RateLimits,
} from './organization';
import {
  organizationExists,
  type ApiKeyRecord,
  type ApiKeyStore,
  type OrganizationStore,
} from '../store';
import { pushOrFail, type PolicyPusher } from './policy';

export interface NewOrganization extends OrganizationSettings {
  id: string;
  name: string;
  monthlyTokenQuota: number;
}

/** A key as the admin API shows it: never the hash, the key itself only once (IssuedKey). */
export interface KeyView {
  keyId: string;
  organization: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

export interface IssuedKey extends KeyView {
  /** Shown once. */
  key: string;
}

export function keyView(record: ApiKeyRecord): KeyView {
  return {
    keyId: record.keyId,
    organization: record.organization,
    name: record.name,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt ?? null,
  };
}

export interface AccountsDeps {
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  keyLookup: KeyLookup;
  pushPolicy: PolicyPusher;
  defaultRateLimits: RateLimits;
  logger: Logger;
  /** Called after an organization changed (this replica drops its cached policy at once). */
  organizationChanged?(id: string): void;
  /** Called after a key of the organization was revoked (other replicas forget their cached keys). */
  keysChanged?(organization: string): void;
}

/** A new organization: the given settings over the defaults. */
export function buildOrganization(
  input: NewOrganization,
  defaultRateLimits: RateLimits,
  now = new Date(),
): Organization {
  return {
    id: input.id,
    name: input.name,
    monthlyTokenQuota: input.monthlyTokenQuota,
    thresholdShares: normalizeShares(input.thresholdShares ?? DEFAULT_THRESHOLD_SHARES),
    hardQuota: input.hardQuota ?? true,
    rateLimits: { ...defaultRateLimits, ...input.rateLimits },
    timeZone: input.timeZone ?? DEFAULT_TIME_ZONE,
    createdAt: now.toISOString(),
  };
}

/** Organizations and keys: what the admin API (and so the CLI) does. */
export class Accounts {
  constructor(private readonly deps: AccountsDeps) {}

  /**
   * Stores the organization, then pushes its policy. Repeating a create with the same settings
   * (e.g. after a 503 from the push) is a retry: it pushes again and answers created: false.
   */
  async createOrganization(
    input: NewOrganization,
    requestId: string,
  ): Promise<{ org: Organization; created: boolean }> {
    checkTimeZone(input.timeZone);
    const wanted = buildOrganization(input, this.deps.defaultRateLimits);
    let org = wanted;
    let created = true;
    try {
      await this.deps.organizations.create(wanted);
    } catch (error) {
      const existing = await this.deps.organizations.get(wanted.id);
      if (!(error instanceof AppError && error.code === 'conflict') || !existing) throw error;
      if (!sameSettings(existing, { ...wanted, createdAt: existing.createdAt }))
        throw organizationExists(wanted.id);
      org = existing;
      created = false;
    }
    this.deps.organizationChanged?.(org.id);
    await pushOrFail(this.deps.pushPolicy, org, requestId, this.deps.logger);
    return { org, created };
  }

  async updateOrganization(
    id: string,
    settings: OrganizationSettings,
    requestId: string,
  ): Promise<Organization> {
    checkTimeZone(settings.timeZone);
    const current = await this.getOrganization(id);
    const updated = await this.deps.organizations.replace(applySettings(current, settings));
    if (!updated) throw unknownOrganization(id);
    this.deps.organizationChanged?.(id);
    await pushOrFail(this.deps.pushPolicy, updated, requestId, this.deps.logger);
    return updated;
  }

  async getOrganization(id: string): Promise<Organization> {
    const org = await this.deps.organizations.get(id);
    if (!org) throw unknownOrganization(id);
    return org;
  }

  listOrganizations(): Promise<Organization[]> {
    return this.deps.organizations.list();
  }

  async issueKey(organization: string, name = ''): Promise<IssuedKey> {
    await this.getOrganization(organization);
    const { key, record } = await issueApiKey(this.deps.apiKeys, organization, name);
    this.deps.logger.info({ organization, keyId: record.keyId }, 'API key issued');
    return { ...keyView(record), key };
  }

  async listKeys(organization: string): Promise<KeyView[]> {
    await this.getOrganization(organization);
    return (await this.deps.apiKeys.listByOrganization(organization)).map(keyView);
  }

  /** Revokes at `at` (now by default). This replica forgets the key at once, the others when the change reaches them (or within the cache TTL). */
  async revokeKey(keyId: string, at = new Date()): Promise<KeyView> {
    const record = await this.deps.apiKeys.revoke(keyId, at.toISOString());
    if (!record) throw AppError.notFound(`no API key ${keyId}`);
    this.deps.keyLookup.forget(keyId);
    this.deps.keysChanged?.(record.organization);
    this.deps.logger.info({ organization: record.organization, keyId }, 'API key revoked');
    return keyView(record);
  }

  /** Revokes a key of this organization only: another organization's key id is unknown here. */
  async revokeOwnKey(organization: string, keyId: string): Promise<KeyView> {
    const record = await this.deps.apiKeys.findById(keyId);
    if (!record || record.organization !== organization)
      throw AppError.notFound(`no API key ${keyId}`);
    return this.revokeKey(keyId);
  }

  /** A new key for the same organization and name; the old one stops working after graceSeconds. */
  async rotateKey(
    keyId: string,
    graceSeconds = 0,
  ): Promise<IssuedKey & { replacedKeyId: string; replacedKeyRevokedAt: string }> {
    const old = await this.deps.apiKeys.findById(keyId);
    if (!old) throw AppError.notFound(`no API key ${keyId}`);
    if (old.revokedAt && Date.parse(old.revokedAt) <= Date.now())
      throw new AppError('conflict', `API key ${keyId} is already revoked`);
    const issued = await this.issueKey(old.organization, old.name);
    const revoked = await this.revokeKey(keyId, new Date(Date.now() + graceSeconds * 1000));
    return { ...issued, replacedKeyId: keyId, replacedKeyRevokedAt: revoked.revokedAt! };
  }
}

function unknownOrganization(id: string): AppError {
  return AppError.notFound(`no organization ${id}`);
}
