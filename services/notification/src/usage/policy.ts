import type { NotificationConfig } from '../config';
import type { PolicyStore } from '../store/policies/port';

/** The quota policy that applies to an organization now. */
export interface EffectivePolicy {
  monthlyTokenQuota: number;
  thresholdShares: number[];
  hardQuota: boolean;
}

/** The organization's stored policy, else the service defaults (DEFAULT_MONTHLY_TOKEN_QUOTA, USAGE_THRESHOLD_SHARES, soft). */
export async function effectivePolicy(
  policies: PolicyStore,
  defaults: NotificationConfig['usage'],
  organization: string,
): Promise<EffectivePolicy> {
  const stored = await policies.get(organization);
  if (stored)
    return {
      monthlyTokenQuota: stored.monthlyTokenQuota,
      thresholdShares: stored.thresholdShares,
      hardQuota: stored.hardQuota,
    };
  return {
    monthlyTokenQuota: defaults.monthlyTokenQuota,
    thresholdShares: defaults.thresholdShares,
    hardQuota: false,
  };
}

/** The token count at which a share of the quota is reached. */
export function thresholdOf(share: number, quota: number): number {
  return Math.floor(share * quota);
}
