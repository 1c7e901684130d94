import { AppError } from '@switchyard/shared';
import { DEFAULT_TIME_ZONE, type Organization, type RateLimits } from '../store';

export const DEFAULT_THRESHOLD_SHARES: readonly number[] = [0.9, 1.0];

/** What an admin may set; omitted fields take the defaults on create and stay as they are on update. */
export interface OrganizationSettings {
  name?: string;
  monthlyTokenQuota?: number;
  thresholdShares?: number[];
  hardQuota?: boolean;
  rateLimits?: Partial<RateLimits>;
  timeZone?: string;
  cacheHitsBilled?: boolean;
}

/** An IANA zone name the runtime knows (Europe/Berlin, America/New_York, UTC); 400 naming /timeZone otherwise. */
export function checkTimeZone(timeZone: string | undefined): void {
  if (timeZone === undefined) return;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
  } catch {
    throw AppError.invalid(
      `timeZone '${timeZone}' is not an IANA time zone such as Europe/Berlin`,
      '/timeZone',
      'must be an IANA time zone',
    );
  }
}

/** Shares sorted and deduplicated, so equal settings compare equal. */
export function normalizeShares(shares: readonly number[]): number[] {
  return [...new Set(shares)].sort((a, b) => a - b);
}

/** Stored only when set: organizations without it compare equal to ones stored before it existed. */
export function cacheBilling(billed: boolean | undefined): { cacheHitsBilled?: boolean } {
  return billed === undefined ? {} : { cacheHitsBilled: billed };
}

export function applySettings(org: Organization, settings: OrganizationSettings): Organization {
  return {
    ...org,
    name: settings.name ?? org.name,
    monthlyTokenQuota: settings.monthlyTokenQuota ?? org.monthlyTokenQuota,
    thresholdShares: settings.thresholdShares
      ? normalizeShares(settings.thresholdShares)
      : org.thresholdShares,
    hardQuota: settings.hardQuota ?? org.hardQuota,
    rateLimits: { ...org.rateLimits, ...settings.rateLimits },
    timeZone: settings.timeZone ?? org.timeZone ?? DEFAULT_TIME_ZONE,
    ...cacheBilling(settings.cacheHitsBilled ?? org.cacheHitsBilled),
  };
}

/** Same settings (createdAt aside): a repeated create is then a retry, not a conflict. */
export function sameSettings(a: Organization, b: Organization): boolean {
  const { createdAt: _a, ...left } = a;
  const { createdAt: _b, ...right } = b;
  return JSON.stringify(left) === JSON.stringify(right);
}
