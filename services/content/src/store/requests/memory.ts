import { AppError } from '@switchyard/shared';
import { HeldLeases } from './held-leases';
import {
  defaultLeaseOptions,
  type AsyncRequestRecord,
  type ClaimOptions,
  type LeaseOptions,
  type RequestOutcome,
  type RequestStore,
} from './port';

type Records = Map<string, AsyncRequestRecord>;

/**
 * Asynchronous requests one process keeps at most in memory (every 202 call adds one). Beyond it
 * the oldest finished requests go first (GET /api/v2/requests/{id} answers 404 for them); those
 * still processing are never dropped.
 */
export const IN_MEMORY_REQUESTS = 50_000;

/**
 * RequestStore in process memory (embedded mode and tests). Returns copies so callers cannot
 * mutate it. sharing() gives a second instance (another "replica") on the same records.
 */
export class InMemoryRequestStore implements RequestStore {
  readonly owner: string;
  private readonly leaseMs: number;
  private readonly held = new HeldLeases();

  constructor(
    options: LeaseOptions = defaultLeaseOptions(),
    private readonly records: Records = new Map(),
    private readonly maxRecords = IN_MEMORY_REQUESTS,
  ) {
    this.owner = options.owner;
    this.leaseMs = options.leaseMs;
  }

  /** Another store instance on the same records, as a second replica on the same database. */
  sharing(options: LeaseOptions = defaultLeaseOptions()): InMemoryRequestStore {
    return new InMemoryRequestStore(options, this.records, this.maxRecords);
  }

  private static key(organization: string, requestId: string): string {
    return `${organization}\u0000${requestId}`;
  }

  async create(record: AsyncRequestRecord): Promise<void> {
    const key = InMemoryRequestStore.key(record.organization, record.requestId);
    if (this.records.has(key))
      throw new AppError('conflict', `request ${record.requestId} already exists`);
    const stored = structuredClone(record);
    if (stored.status === 'processing') {
      stored.lease = this.newLease();
      this.held.add(record.organization, record.requestId);
    } else {
      delete stored.lease;
    }
    this.records.set(key, stored);
    this.dropFinishedBeyondBound();
  }

  /** Oldest finished requests first; one still processing is never dropped. */
  private dropFinishedBeyondBound(): void {
    if (this.records.size <= this.maxRecords) return;
    for (const [key, record] of this.records) {
      if (this.records.size <= this.maxRecords) return;
      if (record.status !== 'processing') this.records.delete(key);
    }
  }

  async get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined> {
    const record = this.records.get(InMemoryRequestStore.key(organization, requestId));
    return record ? structuredClone(record) : undefined;
  }

  async finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean> {
    this.held.delete(organization, requestId);
    const record = this.records.get(InMemoryRequestStore.key(organization, requestId));
    if (!record || record.status !== 'processing') return false;
    record.status = outcome.status;
    record.completedAt = outcome.completedAt;
    record.totalTokens = outcome.totalTokens;
    delete record.lease;
    if (outcome.status === 'completed') record.result = outcome.result;
    else record.error = { ...outcome.error };
    return true;
  }

  async listProcessing(limit = 1000): Promise<AsyncRequestRecord[]> {
    return this.processingOldestFirst()
      .slice(0, limit)
      .map((record) => structuredClone(record));
  }

  async claimNext(options: ClaimOptions = {}): Promise<AsyncRequestRecord | undefined> {
    const now = Date.now();
    // Never one this instance holds (even if its lease lapsed): that would run it twice here.
    const claimable = this.processingOldestFirst().find(
      (record) =>
        !this.held.has(record.organization, record.requestId) &&
        (!record.lease ||
          record.lease.expiresAt <= now ||
          (options.includeOwn === true && record.lease.owner === this.owner)),
    );
    if (!claimable) return undefined;
    claimable.lease = this.newLease();
    this.held.add(claimable.organization, claimable.requestId);
    return structuredClone(claimable);
  }

  async renewLeases(): Promise<number> {
    for (const { organization, requestId } of this.held.list()) {
      const record = this.records.get(InMemoryRequestStore.key(organization, requestId));
      if (record?.status === 'processing' && record.lease?.owner === this.owner)
        record.lease = this.newLease();
      else this.held.delete(organization, requestId); // finished elsewhere or taken over after expiry
    }
    return this.held.list().length;
  }

  async close(): Promise<void> {}

  private newLease() {
    return { owner: this.owner, expiresAt: Date.now() + this.leaseMs };
  }

  private processingOldestFirst(): AsyncRequestRecord[] {
    return [...this.records.values()]
      .filter((record) => record.status === 'processing')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }
}
