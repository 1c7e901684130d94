import { AppError } from '@switchyard/shared';

/** An organization: the unit that owns keys, a monthly token quota and per-key rate limits. */
export interface RateLimits {
  requestsPerMinute: number;
  tokensPerMinute: number;
}

export interface Organization {
  /** A slug: lowercase letters, digits and hyphens. */
  id: string;
  name: string;
  monthlyTokenQuota: number;
  /** Shares of the quota that send usage_threshold (e.g. 0.9 and 1.0). */
  thresholdShares: number[];
  /** Hard: calls over the quota are refused (429); soft: notify only. */
  hardQuota: boolean;
  rateLimits: RateLimits;
  /** IANA zone in which users' dates ("this weekend", "next Friday") are read; UTC when unset (organizations stored before it existed). */
  timeZone?: string;
  /** Response cache hits are billed as the calls that made their answers (default: not billed). */
  cacheHitsBilled?: boolean;
  createdAt: string;
}

/** Where users' dates are read when an organization sets no zone (and for organizations stored before it existed). */
export const DEFAULT_TIME_ZONE = 'UTC';

/** Async so the MongoDB store drops in; ids are unique (create of an existing id is a conflict). */
export interface OrganizationStore {
  /** Throws AppError conflict when the id exists. */
  create(org: Organization): Promise<void>;
  get(id: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  /** Replaces the stored settings (createdAt stays); undefined when the id is unknown. */
  replace(org: Organization): Promise<Organization | undefined>;
}

export function organizationExists(id: string): AppError {
  return new AppError('conflict', `organization ${id} exists with other settings`, [
    { field: '/id', reason: 'already exists' },
  ]);
}
