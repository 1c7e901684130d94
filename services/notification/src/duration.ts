/** Parses "0", "50ms", "5s", "5m", "2h", "5d" into milliseconds; a bare number is milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) throw new Error(`invalid duration "${text}" (use e.g. 500ms, 5s, 5m, 2h, 5d)`);
  const value = Number(match[1]);
  const unit = match[2] ?? 'ms';
  const factor: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Math.round(value * factor[unit]!);
}

/** "0,5s,5m" -> [0, 5000, 300000]: the delay before each attempt, relative to the previous one. */
export function parseRetrySchedule(text: string): number[] {
  const delays = text.split(',').map((part) => parseDuration(part));
  if (delays.length === 0 || delays.length > 20)
    throw new Error('retry schedule must have 1 to 20 entries');
  return delays;
}
