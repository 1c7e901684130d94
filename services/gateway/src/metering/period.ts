/** Quota periods are UTC calendar months, named YYYY-MM. */
export interface Period {
  name: string;
  start: Date;
  /** The first instant of the next period. */
  end: Date;
}

export function periodOf(at: Date): Period {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1));
  const end = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  return { name: start.toISOString().slice(0, 7), start, end };
}

/** Whole seconds until the period ends (at least 1: Retry-After of a period that ends now). */
export function secondsUntilEnd(period: Period, now: Date): number {
  return Math.max(1, Math.ceil((period.end.getTime() - now.getTime()) / 1000));
}
