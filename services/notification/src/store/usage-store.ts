/** Monthly token totals per organization, counted once per usage event id. */
export interface UsageStore {
  /** Adds tokens unless eventId was already counted; returns the period total after it. */
  add(organization: string, period: string, eventId: string, tokens: number): Promise<{ total: number; counted: boolean }>;
  total(organization: string, period: string): Promise<number>;
  /** Shares of the quota already notified for the period. */
  notifiedShares(organization: string, period: string): Promise<number[]>;
  markNotified(organization: string, period: string, share: number): Promise<void>;
}

interface PeriodUsage {
  total: number;
  eventIds: Set<string>;
  notified: Set<number>;
}

export class InMemoryUsageStore implements UsageStore {
  private readonly periods = new Map<string, PeriodUsage>();

  async add(organization: string, period: string, eventId: string, tokens: number): Promise<{ total: number; counted: boolean }> {
    const usage = this.periodOf(organization, period);
    if (usage.eventIds.has(eventId)) return { total: usage.total, counted: false };
    usage.eventIds.add(eventId);
    usage.total += tokens;
    return { total: usage.total, counted: true };
  }

  async total(organization: string, period: string): Promise<number> {
    return this.periods.get(`${organization}\u0000${period}`)?.total ?? 0;
  }

  async notifiedShares(organization: string, period: string): Promise<number[]> {
    return [...(this.periods.get(`${organization}\u0000${period}`)?.notified ?? [])];
  }

  async markNotified(organization: string, period: string, share: number): Promise<void> {
    this.periodOf(organization, period).notified.add(share);
  }

  private periodOf(organization: string, period: string): PeriodUsage {
    const key = `${organization}\u0000${period}`;
    let usage = this.periods.get(key);
    if (!usage) {
      usage = { total: 0, eventIds: new Set(), notified: new Set() };
      this.periods.set(key, usage);
    }
    return usage;
  }
}
