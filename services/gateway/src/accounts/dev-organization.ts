import { AppError, type Logger } from '@switchyard/shared';
import { hashApiKey, registerApiKey } from '../auth/api-keys';
import { buildOrganization } from './accounts';
import type { ApiKeyStore, Organization, OrganizationStore, RateLimits } from '../store';
import { pushInBackground, type PolicyPusher } from './policy';

/** The organization that DEV_API_KEY belongs to. */
export const DEV_ORGANIZATION = 'dev';

export interface DevOrganizationDeps {
  defaultRateLimits: RateLimits;
  organizations: OrganizationStore;
  apiKeys: ApiKeyStore;
  pushPolicy: PolicyPusher;
  devApiKey: string;
  monthlyTokenQuota: number;
  hardQuota: boolean;
  logger: Logger;
}

function isConflict(error: unknown): boolean {
  return error instanceof AppError && error.code === 'conflict';
}

/** Creates the dev organization unless it exists (another replica may create it at the same time). */
async function ensureOrganization(deps: DevOrganizationDeps): Promise<Organization> {
  const existing = await deps.organizations.get(DEV_ORGANIZATION);
  if (existing) return existing;
  const org = buildOrganization(
    {
      id: DEV_ORGANIZATION,
      name: 'Development',
      monthlyTokenQuota: deps.monthlyTokenQuota,
      hardQuota: deps.hardQuota,
    },
    deps.defaultRateLimits,
  );
  try {
    await deps.organizations.create(org);
    deps.logger.info(
      { organization: DEV_ORGANIZATION, monthlyTokenQuota: org.monthlyTokenQuota },
      'dev organization created',
    );
    return org;
  } catch (error) {
    if (!isConflict(error)) throw error;
    return (await deps.organizations.get(DEV_ORGANIZATION))!;
  }
}

/** Registers DEV_API_KEY by its hash unless known (a revoked dev key stays revoked). */
async function ensureKey(deps: DevOrganizationDeps): Promise<void> {
  if (await deps.apiKeys.findByHash(hashApiKey(deps.devApiKey))) return;
  try {
    await registerApiKey(deps.apiKeys, deps.devApiKey, DEV_ORGANIZATION, 'dev');
  } catch (error) {
    if (!isConflict(error)) throw error;
  }
}

/**
 * At start: the dev organization and its key exist, and its policy is pushed to notification in
 * the background until that succeeds (start does not wait for notification). Returns a stop function.
 */
export async function bootstrapDevOrganization(deps: DevOrganizationDeps): Promise<() => void> {
  const org = await ensureOrganization(deps);
  await ensureKey(deps);
  return pushInBackground(deps.pushPolicy, org, deps.logger);
}
