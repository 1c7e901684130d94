import { AppError, type Logger } from '@switchyard/shared';
import { issueApiKey } from '../auth/api-keys';
import type { KeyLookup } from '../read-models/key-lookup';
import {
  applySettings,
  checkTimeZone,
  DEFAULT_THRESHOLD_SHARES,
  cacheBilling,
  normalizeShares,
  sameSettings,
  type OrganizationSettings,
} from './organization';
import {
  DEFAULT_TIME_ZONE,
  KEY_SCOPE_FIELDS,
  organizationExists,
  type ApiKeyRecord,
  type ApiKeyStore,
  type KeyChanges,
  type KeyScope,
  type Organization,
  type OrganizationStore,
  type RateLimits,
} from '../store';
import { isRestricted } from '../auth/scopes';
import { pushOrFail, type PolicyPusher } from './policy';

export interface NewOrganization extends OrganizationSettings {
  id: string;
  name: string;
  monthlyTokenQuota: number;
}

/** A key as the admin API shows it: never the hash, the key itself only once (IssuedKey). */
export interface KeyView extends KeyScope {
  keyId: string;
  organization: string;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

/** A new key: its label, scopes, budgets and cache. */
export interface NewKey extends KeyScope {
  name?: string;
}

export interface IssuedKey extends KeyView {
  /** Shown once. */
  key: string;
}

export function keyView(record: ApiKeyRecord): KeyView {
  const view: KeyView = {
    keyId: record.keyId,
    organization: record.organization,
    name: record.name,
    createdAt: record.createdAt,
    revokedAt: record.revokedAt ?? null,
  };
  for (const field of KEY_SCOPE_FIELDS)
    if (record[field] !== undefined) Object.assign(view, { [field]: record[field] });
  return view;
}

/** The scope fields of a request body (name aside). */
function scopeOf(input: NewKey): KeyScope {
  const scope: KeyScope = {};
  for (const field of KEY_SCOPE_FIELDS)
    if (input[field] !== undefined) Object.assign(scope, { [field]: input[field] });
  return scope;
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
  /** Model ids and aliases of the registry: a key's `models` must name some of them. */
  modelNames?(): Promise<string[]>;
  /** 400 unless the team is the organization's: a key's `teamId` must name one. */
  checkTeam?(organization: string, teamId: string): Promise<void>;
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
    ...cacheBilling(input.cacheHitsBilled),
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

  async issueKey(organization: string, input: NewKey = {}): Promise<IssuedKey> {
    await this.getOrganization(organization);
    const scope = scopeOf(input);
    await this.checkScope(organization, scope);
    const { key, record } = await issueApiKey(
      this.deps.apiKeys,
      organization,
      input.name ?? '',
      scope,
    );
    this.deps.logger.info({ organization, keyId: record.keyId }, 'API key issued');
    return { ...keyView(record), key };
  }

  /** Changes a key's name, scopes, budgets or cache; every replica sees the change as a revocation would be seen. */
  async updateKey(keyId: string, changes: KeyChanges, organization?: string): Promise<KeyView> {
    const current = await this.deps.apiKeys.findById(keyId);
    if (!current || (organization !== undefined && current.organization !== organization))
      throw AppError.notFound(`no API key ${keyId}`);
    const { name: _name, ...scope } = changes;
    await this.checkScope(current.organization, scope);
    const record = await this.deps.apiKeys.update(keyId, changes);
    if (!record) throw AppError.notFound(`no API key ${keyId}`);
    this.deps.keyLookup.forget(keyId);
    this.deps.keysChanged?.(record.organization);
    this.deps.logger.info({ organization: record.organization, keyId }, 'API key changed');
    return keyView(record);
  }

  /**
   * Keys and teams are managed by the organization's unrestricted keys: a key limited to some
   * models or routes is an application's, and may not widen itself or others (403).
   */
  requireManager(caller: KeyScope | undefined): void {
    if (caller && isRestricted(caller))
      throw new AppError(
        'forbidden',
        'a key limited to some models or routes cannot manage keys or teams; use an unrestricted key',
      );
  }

  /** Every name in `models` must be a model id or alias of the registry (400 naming the unknown ones). */
  private async checkScope(
    organization: string,
    scope: Partial<Record<keyof KeyScope, unknown>>,
  ): Promise<void> {
    if (typeof scope.teamId === 'string') await this.deps.checkTeam?.(organization, scope.teamId);
    const models = scope.models;
    if (!Array.isArray(models) || !this.deps.modelNames) return;
    const known = new Set((await this.deps.modelNames()).map((n) => n.toLowerCase()));
    const unknown = (models as string[]).flatMap((name, i) =>
      known.has(name.toLowerCase()) ? [] : [{ name, i }],
    );
    if (unknown.length > 0)
      throw new AppError(
        'invalid_request',
        `unknown model(s) in models: ${unknown.map((u) => u.name).join(', ')}; GET /api/v2/models lists them`,
        unknown.map((u) => ({ field: `/models/${u.i}`, reason: `unknown model ${u.name}` })),
      );
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
    await this.ownKey(organization, keyId);
    return this.revokeKey(keyId);
  }

  /** Rotates a key of this organization only (see rotateKey). */
  async rotateOwnKey(
    organization: string,
    keyId: string,
    graceSeconds = 0,
  ): Promise<IssuedKey & { replacedKeyId: string; replacedKeyRevokedAt: string }> {
    await this.ownKey(organization, keyId);
    return this.rotateKey(keyId, graceSeconds);
  }

  private async ownKey(organization: string, keyId: string): Promise<ApiKeyRecord> {
    const record = await this.deps.apiKeys.findById(keyId);
    if (!record || record.organization !== organization)
      throw AppError.notFound(`no API key ${keyId}`);
    return record;
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
    const { keyId: _id, organization, hash: _hash, createdAt: _at, revokedAt: _r, ...kept } = old;
    // The new key keeps the old one's name, scopes, budgets and cache.
    const issued = await this.issueKey(organization, kept);
    const revoked = await this.revokeKey(keyId, new Date(Date.now() + graceSeconds * 1000));
    return { ...issued, replacedKeyId: keyId, replacedKeyRevokedAt: revoked.revokedAt! };
  }
}

function unknownOrganization(id: string): AppError {
  return AppError.notFound(`no organization ${id}`);
}
