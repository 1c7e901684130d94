import type { GenerateInput } from '../models/text-model';

export type RequestStatus = 'processing' | 'completed' | 'failed';

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
}

export type RequestOutcome =
  | { status: 'completed'; result: string; totalTokens: number; completedAt: string }
  | { status: 'failed'; error: { code: string; message: string }; totalTokens: number; completedAt: string };

/** Asynchronous requests, keyed by organization and request id. */
export interface RequestStore {
  /** Throws AppError conflict if the organization already has this request id. */
  create(record: AsyncRequestRecord): Promise<void>;
  /** undefined when absent or owned by another organization. */
  get(organization: string, requestId: string): Promise<AsyncRequestRecord | undefined>;
  /** Records the end of a processing request; returns false if it was not processing. */
  finish(organization: string, requestId: string, outcome: RequestOutcome): Promise<boolean>;
  /** Requests still processing, oldest first, e.g. to resume them after a restart. */
  listProcessing(limit?: number): Promise<AsyncRequestRecord[]>;
}
