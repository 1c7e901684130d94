/** One billable call's tokens counted against its organization's quota in a period. */
export interface QuotaReservation {
  /** The gateway request id of the call (one reservation per call). */
  id: string;
  organization: string;
  /** YYYY-MM */
  period: string;
  tokens: number;
}

/**
 * Hard-quota reservations kept durably, each written before its call runs and settled to the real
 * usage after it: the sum for a period is never behind the quota counter in shared state, so a
 * counter lost with Redis is rebuilt from it (the usage ledger can lag by minutes).
 */
export interface ReservationStore {
  add(reservation: QuotaReservation): Promise<void>;
  /** The call finished: its reservation becomes its real usage. */
  settle(id: string, tokens: number): Promise<void>;
  /** The call failed before it produced a result: it counts nothing. */
  remove(id: string): Promise<void>;
  /** Tokens reserved and settled for the organization in the period. */
  total(organization: string, period: string): Promise<number>;
}

export class InMemoryReservationStore implements ReservationStore {
  private readonly reservations = new Map<string, QuotaReservation>();

  async add(reservation: QuotaReservation): Promise<void> {
    if (!this.reservations.has(reservation.id)) this.reservations.set(reservation.id, { ...reservation });
  }

  async settle(id: string, tokens: number): Promise<void> {
    const reservation = this.reservations.get(id);
    if (reservation) reservation.tokens = tokens;
  }

  async remove(id: string): Promise<void> {
    this.reservations.delete(id);
  }

  async total(organization: string, period: string): Promise<number> {
    let sum = 0;
    for (const r of this.reservations.values()) if (r.organization === organization && r.period === period) sum += r.tokens;
    return sum;
  }
}
