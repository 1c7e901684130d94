import type {
  BucketRef,
  BucketDelta,
  KeyedTotals,
  ReportedKind,
  UsageEntry,
  UsageTotals,
} from '../../usage/usage-entry';

/**
 * How many batch ids each projection bucket remembers at least (two generations of this size are
 * kept). A batch is re-applied only while it is unfinished (its owner died, or its retries ran
 * out and the sweeper takes it up), so a bounded window makes re-application a no-op.
 */
export const APPLIED_WINDOW = 1000;

/**
 * A batch being counted: written (one atomic document) before anything else of the batch, removed
 * once the batch is in the projection. Its entries are the ledger entries it owns; a journal left
 * behind by a process that died is completed by the sweeper.
 */
export interface BatchJournal {
  batch: string;
  entries: UsageEntry[];
  deltas: BucketDelta[];
}

/**
 * The usage ledger: an append-only log of usage entries (unique by event id, each owned by the
 * batch that inserted it) and the projection built from it (totals per organization and month,
 * by model, by endpoint and by day).
 *
 * Exactly-once without transactions, per batch: writeJournal() fixes what the batch may add;
 * append() decides which events are the batch's (unique ids: an id stored by another batch is
 * not, see owners()); applyDeltas() adds each delta to its bucket unless the bucket lists the
 * batch id already (so completing a batch again after a crash adds only what was missed);
 * dropJournal() ends it. No step updates the ledger, and no step scans it.
 */
/** Where a page of calls starts: after this entry, in newest-first order. */
export interface CallCursor {
  occurredAt: string;
  eventId: string;
}

/** A page of billed calls (entries of usage.recorded, not refusals), newest first. */
export interface CallFilter {
  keyId?: string;
  before?: CallCursor;
  limit: number;
}

export interface UsageLedgerStore {
  writeJournal(journal: BatchJournal): Promise<void>;
  /** Replaces a journal's entries and deltas (only before any of them is applied). */
  rewriteJournal(journal: BatchJournal): Promise<void>;
  /** Journals written before the ISO time, oldest first: batches whose writer died or gave up. */
  staleJournals(writtenBefore: string, limit: number): Promise<BatchJournal[]>;
  dropJournal(batch: string): Promise<void>;
  /** Appends the entries owned by the batch; returns the ids that were stored already (by any batch). */
  append(batch: string, entries: UsageEntry[]): Promise<string[]>;
  /** The batch that owns each of these stored entries. */
  owners(eventIds: string[]): Promise<Map<string, string>>;
  /** Adds each delta to its bucket unless the bucket lists the batch already. */
  applyDeltas(journal: BatchJournal): Promise<void>;
  totals(organization: string, period: string): Promise<UsageTotals>;
  /**
   * The period's buckets of one kind (model; endpoint: by route key; refused: by
   * refusalKey(day, reason), the refused calls in `calls`; key, team, user), unordered.
   */
  buckets(organization: string, period: string, kind: ReportedKind): Promise<KeyedTotals[]>;
  /**
   * The organization's billed calls, newest first (by time, then event id), after `before`. The
   * one read of the ledger itself, served by an index on (organization, time).
   */
  calls(organization: string, filter: CallFilter): Promise<UsageEntry[]>;
  /** The sums of these buckets (those that exist), read by _id: a budget's days. */
  sum(organization: string, buckets: BucketRef[]): Promise<UsageTotals>;
  /** Day buckets from fromDay to toDay inclusive (YYYY-MM-DD), unordered; days without usage are absent. */
  daily(organization: string, fromDay: string, toDay: string): Promise<KeyedTotals[]>;
}

export function totalsOf(source: UsageTotals): UsageTotals {
  return {
    tokensInput: source.tokensInput,
    tokensOutput: source.tokensOutput,
    costNanos: source.costNanos,
    calls: source.calls,
  };
}

/** The sums of the buckets found (undefined: absent). */
export function sumOf(found: Array<UsageTotals | undefined>): UsageTotals {
  const sum = { tokensInput: 0, tokensOutput: 0, costNanos: 0, calls: 0 };
  for (const totals of found) {
    if (!totals) continue;
    sum.tokensInput += totals.tokensInput;
    sum.tokensOutput += totals.tokensOutput;
    sum.costNanos += totals.costNanos;
    sum.calls += totals.calls;
  }
  return sum;
}
