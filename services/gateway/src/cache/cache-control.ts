/** The longest an answer is kept, whatever a request or a key asks (30 days). */
export const MAX_CACHE_AGE_SECONDS = 30 * 24 * 3600;

/** What a request's Cache-Control asks of the response cache (RFC 9111 request directives). */
export interface CacheDirectives {
  /** no-store: the cache is neither read nor written for this call. */
  noStore: boolean;
  /** no-cache: not answered from the cache (the fresh answer is stored). */
  noCache: boolean;
  /** max-age=N: an answer stored at most N seconds ago may be replayed; enables the cache. */
  maxAge?: number;
}

/** Directives are case-insensitive and comma-separated; one not understood is ignored (RFC 9111 5.2). */
export function cacheDirectivesOf(header: string | undefined): CacheDirectives {
  const directives: CacheDirectives = { noStore: false, noCache: false };
  if (!header) return directives;
  for (const part of header.split(',')) {
    const [name = '', value] = part.trim().toLowerCase().split('=', 2);
    if (name === 'no-store') directives.noStore = true;
    else if (name === 'no-cache') directives.noCache = true;
    else if (name === 'max-age' && value !== undefined && /^"?\d{1,10}"?$/.test(value))
      directives.maxAge = Math.min(Number(value.replaceAll('"', '')), MAX_CACHE_AGE_SECONDS);
  }
  return directives;
}
