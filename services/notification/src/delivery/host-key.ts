/** The concurrency key of a URL: host and port, lower-cased. */
export function hostKey(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url;
  }
}
