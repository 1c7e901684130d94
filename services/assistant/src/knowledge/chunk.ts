/** Characters per chunk: a few paragraphs, small enough for a prompt to hold several. */
export const CHUNK_CHARS = 1200;
/** Carried over from the end of one chunk to the start of the next, so a sentence cut at a boundary is still found. */
const OVERLAP_CHARS = 150;

/** Splits at the last paragraph, line or sentence break before the limit, else at a space, else hard. */
function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit);
  for (const separator of ['\n\n', '\n', '. ', ' ']) {
    const at = window.lastIndexOf(separator);
    if (at > limit / 2) return at + separator.length;
  }
  return limit;
}

/** Long texts in overlapping chunks; a short text is one chunk. */
export function chunkText(text: string, limit = CHUNK_CHARS): string[] {
  const clean = text.trim();
  if (clean.length <= limit) return clean ? [clean] : [];
  const chunks: string[] = [];
  let rest = clean;
  while (rest.length > limit) {
    const cut = cutPoint(rest, limit);
    chunks.push(rest.slice(0, cut).trim());
    const next = Math.max(cut - OVERLAP_CHARS, 1);
    // Restart at a word boundary inside the overlap.
    const space = rest.indexOf(' ', next);
    rest = rest.slice(space > 0 && space < cut ? space + 1 : cut);
  }
  if (rest.trim()) chunks.push(rest.trim());
  return chunks;
}
