const integer = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

export const formatInteger = (n: number): string => integer.format(n);
export const formatCompact = (n: number): string => compact.format(n);

/** Costs are small (fractions of a cent per call): show enough digits to tell calls apart. */
export function formatCost(n: number): string {
  const digits = n === 0 ? 2 : n < 0.01 ? 5 : n < 1 ? 4 : 2;
  return `$${n.toFixed(digits)}`;
}

export function formatPercent(share: number, digits = 1): string {
  return `${(share * 100).toFixed(digits).replace(/\.0+$/, '')}%`;
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? iso
    : date.toLocaleString('en', { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  return date.toLocaleDateString('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

export function relativeTime(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const seconds = Math.round((Date.parse(iso) - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  const abs = Math.abs(seconds);
  if (abs < 60) return rtf.format(seconds, 'second');
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), 'minute');
  if (abs < 86400) return rtf.format(Math.round(seconds / 3600), 'hour');
  return rtf.format(Math.round(seconds / 86400), 'day');
}

/** A datetime-local input's value (the browser's time zone) as an ISO time, '' when empty. */
export function isoFromLocal(value: string): string {
  const time = value ? new Date(value).getTime() : Number.NaN;
  return Number.isNaN(time) ? '' : new Date(time).toISOString();
}

/** A datetime-local value (the browser's time zone, to the minute) of a time. */
export function localInputOf(time: number): string {
  const date = new Date(time - new Date(time).getTimezoneOffset() * 60_000);
  return date.toISOString().slice(0, 16);
}
