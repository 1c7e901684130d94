import { thresholdKey, type ThresholdRecord, type ThresholdStore } from './port';

export class InMemoryThresholdStore implements ThresholdStore {
  private readonly records = new Map<string, ThresholdRecord>();

  async claim(record: ThresholdRecord): Promise<ThresholdRecord> {
    const key = thresholdKey(record.organization, record.period, record.share);
    if (!this.records.has(key)) this.records.set(key, { ...record });
    return { ...this.records.get(key)! };
  }

  async markNotified(organization: string, period: string, share: number): Promise<void> {
    const record = this.records.get(thresholdKey(organization, period, share));
    if (record) record.notified = true;
  }

  async list(organization: string, period: string): Promise<ThresholdRecord[]> {
    return [...this.records.values()]
      .filter((r) => r.organization === organization && r.period === period)
      .map((r) => ({ ...r }));
  }
}
