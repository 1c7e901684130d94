import { AppError } from '@switchyard/shared';
import type { AsyncRequestRecord, RequestOutcome, RequestStore } from './request-store';

/** RequestStore in process memory (embedded mode and tests). Returns copies so callers cannot mutate it. */
export class InMemoryRequestStore implements RequestStore {
  private readonly records = new Map<string, AsyncRequestRecord>();

  private static key(organization: string, requestId: string): string {
    return `${organization}\u0000${requestId}`;
  }

  async create(record: AsyncRequestRecord): Promise<void> {
    const key = InMemoryRequestStore.key(record.organization, record.requestId);
    if (this.records.has(key)) throw new AppError('conflict', `request ${record.requestId} already exists`);
    this.records.set(key, structuredClone(record));
  }

  async get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined> {
    const record = this.records.get(InMemoryRequestStore.key(organization, requestId));
    return record ? structuredClone(record) : undefined;
  }

  async finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean> {
    const record = this.records.get(InMemoryRequestStore.key(organization, requestId));
    if (!record || record.status !== 'processing') return false;
    record.status = outcome.status;
    record.completedAt = outcome.completedAt;
    record.totalTokens = outcome.totalTokens;
    if (outcome.status === 'completed') record.result = outcome.result;
    else record.error = { ...outcome.error };
    return true;
  }

  async listProcessing(limit = 1000): Promise<AsyncRequestRecord[]> {
    return [...this.records.values()]
      .filter((record) => record.status === 'processing')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }
}
