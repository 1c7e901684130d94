/** "en-US" -> "en", "FR" -> "fr"; empty stays empty. */
export function normalizeLanguage(language: string): string {
  return (language.trim().toLowerCase().split(/[-_]/)[0] ?? '').trim();
}
