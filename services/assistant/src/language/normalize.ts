/**
 * Text as the builtin engine reads it: lower case, accents removed (ä -> a, ñ -> n), everything
 * but letters and digits (of any script) turned into single spaces, padded with a space at each end so that
 * phrases can be looked up as " this weekend ".
 */
export function normalize(text: string): string {
  const plain = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim();
  return ` ${plain} `;
}

/** Whether a normalized text contains a phrase (itself normalized) as whole words. */
export function hasPhrase(normalized: string, phrase: string): boolean {
  const p = normalize(phrase);
  return p.trim() !== '' && normalized.includes(p);
}

/** The first of the phrases that a normalized text contains, as written in the list. */
export function firstPhrase(normalized: string, phrases: readonly string[]): string | undefined {
  return phrases.find((phrase) => hasPhrase(normalized, phrase));
}

/** The text with each of the phrases taken out (whole words), for what remains to be read. */
export function withoutPhrases(normalized: string, phrases: readonly string[]): string {
  let rest = normalized;
  for (const phrase of phrases) {
    const p = normalize(phrase);
    if (p.trim() === '') continue;
    while (rest.includes(p)) rest = rest.replace(p, ' ');
  }
  return ` ${rest.replace(/\s+/g, ' ').trim()} `;
}
