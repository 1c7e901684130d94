import { outageOf } from '@switchyard/shared';
import { DEFAULT_TIME_ZONE, type OrganizationStore, type RateLimits } from '../store';
import type { Change, ReadModel } from './read-model';

/** What a request needs to know about its organization. */
export interface OrganizationPolicy {
  id: string;
  /** undefined: the organization is not in the store (e.g. a key created outside the admin API): no quota. */
  monthlyTokenQuota?: number;
  hardQuota: boolean;
  rateLimits: RateLimits;
  /** IANA zone of dates in users' words (the assistants). */
  timeZone: string;
  /** Response cache hits are billed (recorded as usage). */
  cacheHitsBilled: boolean;
}

/**
 * Organization lookups with the same short per-replica cache as keys: an admin change (quota,
 * limits) reaches every replica within the TTL.
 */
export class OrganizationDirectory implements ReadModel {
  private readonly cache = new Map<string, { policy: OrganizationPolicy; expiresAt: number }>();

  constructor(
    private readonly store: OrganizationStore,
    private readonly defaults: RateLimits,
    private readonly ttlMs: number,
  ) {}

  async policyOf(id: string): Promise<OrganizationPolicy> {
    const now = Date.now();
    const cached = this.cache.get(id);
    if (cached && cached.expiresAt > now) return cached.policy;
    let org: Awaited<ReturnType<OrganizationStore['get']>>;
    try {
      org = await this.store.get(id);
    } catch (error) {
      // The store unreachable: the last known policy serves until it is back.
      if (cached && outageOf(error)) return cached.policy;
      throw error;
    }
    const policy: OrganizationPolicy = org
      ? {
          id,
          monthlyTokenQuota: org.monthlyTokenQuota,
          hardQuota: org.hardQuota,
          rateLimits: org.rateLimits,
          timeZone: org.timeZone ?? DEFAULT_TIME_ZONE,
          cacheHitsBilled: org.cacheHitsBilled === true,
        }
      : {
          id,
          hardQuota: false,
          rateLimits: this.defaults,
          timeZone: DEFAULT_TIME_ZONE,
          cacheHitsBilled: false,
        };
    if (this.ttlMs > 0) this.cache.set(id, { policy, expiresAt: now + this.ttlMs });
    return policy;
  }

  /** Forgets an organization's policy when it changed (here or on another replica). */
  changed(organization: string, change: Change): void {
    if (change === 'policy') this.cache.delete(organization);
  }
}
