import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { GenerateInput } from '../../models/text-model';

export type RequestStatus = 'processing' | 'completed' | 'failed';

/** Which replica may run a processing request, and until when (epoch ms) unless it renews. */
export interface RequestLease {
  owner: string;
  expiresAt: number;
}

/** An asynchronous request; enough is kept (model and input) to run it again after a crash. */
export interface AsyncRequestRecord {
  requestId: string;
  organization: string;
  keyId: string;
  status: RequestStatus;
  operation: 'generate';
  createdAt: string;
  completedAt?: string;
  webhookUrl: string;
  /** The resolved model id the job runs on. */
  model: string;
  input: GenerateInput;
  result: string;
  totalTokens: number;
  error?: { code: string; message: string };
  /** Set by the store while the request is processing; cleared when it finishes. */
  lease?: RequestLease;
}

export type RequestOutcome =
  | { status: 'completed'; result: string; totalTokens: number; completedAt: string }
  | {
      status: 'failed';
      error: { code: string; message: string };
      totalTokens: number;
      completedAt: string;
    };

/** Who this store instance (one per replica) leases requests to, and for how long. */
export interface LeaseOptions {
  /** Stable per replica, so a restarted replica can take back its own leases at once. */
  owner: string;
  leaseMs: number;
}

export const DEFAULT_LEASE_MS = 5 * 60_000;

/** A unique owner for stores that are not given one (tests, embedded mode). */
export function defaultLeaseOptions(): LeaseOptions {
  return {
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    leaseMs: DEFAULT_LEASE_MS,
  };
}

export interface ClaimOptions {
  /**
   * Also claim requests leased to this owner that this store instance does not hold: they were
   * accepted by a previous process of the same replica (used once, when the replica starts).
   */
  includeOwn?: boolean;
}

/**
 * Asynchronous requests, keyed by organization and request id. A store instance belongs to one
 * replica: requests it creates or claims are leased to that replica while they are processing,
 * so two replicas never run the same request unless a lease expired (its holder died).
 */
export interface RequestStore {
  readonly owner: string;
  /** Throws AppError conflict if the organization already has this request id. A processing record is leased to this owner. */
  create(record: AsyncRequestRecord): Promise<void>;
  /** undefined when absent or owned by another organization. */
  get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined>;
  /** Records the end of a processing request and drops its lease; returns false if it was not processing. */
  finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean>;
  /** Requests still processing, oldest first (whoever holds them). */
  listProcessing(limit?: number): Promise<AsyncRequestRecord[]>;
  /** Takes the lease of the oldest processing request whose lease expired; undefined when there is none. */
  claimNext(options?: ClaimOptions): Promise<AsyncRequestRecord | undefined>;
  /** Extends the leases this instance holds (created or claimed, not finished); returns how many it still holds. */
  renewLeases(): Promise<number>;
  /** Releases the connection (no-op in memory). */
  close(): Promise<void>;
}
