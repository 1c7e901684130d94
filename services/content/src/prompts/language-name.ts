const names = new Intl.DisplayNames(['en'], { type: 'language' });

/** "de" -> "German"; unknown codes are used as given so the model still sees the request. */
export function languageName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}
