/**
 * A date `days` from today at `time` (UTC unless the time names an offset), as an event's
 * startsAt. Tests whose events must still be to come (the assistants skip past events) use it
 * instead of a fixed date that would pass.
 */
export function daysAhead(days: number, time = '19:00:00Z'): string {
  const day = new Date(Date.now() + days * 24 * 3600 * 1000).toISOString().slice(0, 10);
  return `${day}T${time}`;
}
