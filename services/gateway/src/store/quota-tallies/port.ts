/** Tokens to add to one organization's tally for one period (negative: given back). */
export interface TallyDelta {
  organization: string;
  /** YYYY-MM */
  period: string;
  tokens: number;
}

/**
 * Hard-quota tokens kept durably: one tally per (writer, organization, period), where a writer is
 * one gateway process. Each tally has a single writer that sends one batch at a time, so the
 * tally's last-batch guard tells a retried batch from a new one; the organization's total is the
 * sum over writers, read only to rebuild a lost quota counter.
 */
export interface QuotaTallyStore {
  /**
   * Adds the batch's deltas to the writer's tallies in one write. A batch id already applied to a
   * tally is not applied again (a retried write counts once).
   */
  add(writer: string, batch: string, deltas: TallyDelta[]): Promise<void>;
  total(organization: string, period: string): Promise<number>;
}

export function tallyId(writer: string, organization: string, period: string): string {
  return JSON.stringify([writer, organization, period]);
}
