import { AppError, type CallContext } from '@switchyard/shared';
import type {
  OrganizationPolicy,
  OrganizationPolicy__Output,
} from '@switchyard/shared/proto/notification/v1';
import type { OrganizationPolicyRecord } from '../store/policies/port';
import { organizationOf } from './common';
import type { HandlerDeps } from './deps';

const MAX_SHARE = 10;

function validQuota(value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw AppError.invalid(
      'monthly_token_quota must be an integer >= 0',
      '/monthly_token_quota',
      'must be an integer >= 0',
    );
  }
  return value;
}

/** Shares must be in (0, 10], strictly ascending (so sorted and unique as given). */
function validShares(shares: number[]): number[] {
  shares.forEach((share, index) => {
    const field = `/threshold_shares/${index}`;
    if (!Number.isFinite(share) || share <= 0 || share > MAX_SHARE) {
      throw AppError.invalid(
        `threshold_shares must be in (0, ${MAX_SHARE}]`,
        field,
        'out of range',
      );
    }
    if (index > 0 && share <= shares[index - 1]!) {
      throw AppError.invalid(
        'threshold_shares must be sorted ascending without repeats',
        field,
        'not ascending',
      );
    }
  });
  return [...shares];
}

/** Stores the calling organization's quota policy (the gateway's admin API puts it) and returns it. */
export async function putOrganizationPolicy(
  deps: HandlerDeps,
  request: OrganizationPolicy__Output,
  context: CallContext,
): Promise<OrganizationPolicy> {
  const organization = organizationOf(context);
  if (request.organization && request.organization !== organization) {
    throw AppError.invalid(
      'organization must be the calling organization',
      '/organization',
      'does not match the caller',
    );
  }
  const policy: OrganizationPolicyRecord = {
    organization,
    monthlyTokenQuota: validQuota(Number(request.monthly_token_quota)),
    thresholdShares: validShares(request.threshold_shares ?? []),
    hardQuota: request.hard_quota === true,
    updatedAt: new Date().toISOString(),
  };
  await deps.stores.policies.put(policy);
  return {
    organization,
    monthly_token_quota: policy.monthlyTokenQuota,
    threshold_shares: policy.thresholdShares,
    hard_quota: policy.hardQuota,
  };
}
