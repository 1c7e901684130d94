/** A crossing of a share of the monthly quota: the one usage_threshold of (organization, period, share). */
export interface ThresholdRecord {
  organization: string;
  period: string;
  share: number;
  /** Consumed tokens when the crossing was first seen. */
  usage: number;
  threshold: number;
  quota: number;
  /** Time of the usage event that crossed it. */
  occurredAt: string;
  /** Set once the webhook deliveries and the bus event exist. */
  notified: boolean;
}

export interface ThresholdStore {
  /**
   * Records the crossing unless one exists for (organization, period, share); returns the stored
   * record, so every replica and replay works with the first one (its usage and time).
   */
  claim(record: ThresholdRecord): Promise<ThresholdRecord>;
  markNotified(organization: string, period: string, share: number): Promise<void>;
  list(organization: string, period: string): Promise<ThresholdRecord[]>;
}

export function thresholdKey(organization: string, period: string, share: number): string {
  return JSON.stringify([organization, period, share]);
}
