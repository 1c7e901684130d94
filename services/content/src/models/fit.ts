import { countTokens, truncateToTokens } from '@switchyard/shared';

/**
 * Whether text is certainly within maxTokens without a tokenizer pass: every token covers at
 * least one UTF-8 byte, and a model's own count of its output (when it reported one) is exact.
 */
function surelyFits(text: string, maxTokens: number, reportedTokens?: number): boolean {
  if (reportedTokens !== undefined && reportedTokens <= maxTokens) return true;
  return text.length <= maxTokens && Buffer.byteLength(text) <= maxTokens;
}

/**
 * The longest prefix of text within maxTokens that ends at a sentence end, else at a word
 * end; never more than maxTokens tokens as counted by the shared tokenizer.
 */
export function fitToTokens(text: string, maxTokens: number, reportedTokens?: number): string {
  if (surelyFits(text, maxTokens, reportedTokens) || countTokens(text) <= maxTokens) return text;
  const prefix = truncateToTokens(text, maxTokens);
  const sentenceEnds = [...prefix.matchAll(/[.!?…]["')\]»*]*(?=\s|$)/g)];
  const lastSentence = sentenceEnds[sentenceEnds.length - 1];
  let fitted: string;
  if (lastSentence) fitted = prefix.slice(0, lastSentence.index + lastSentence[0].length);
  else {
    // The next character of the full text tells whether the prefix ended inside a word.
    const endsAtWord = /\s/.test(text.charAt(prefix.length));
    const lastSpace = prefix.search(/\s\S*$/);
    fitted = endsAtWord || lastSpace <= 0 ? prefix : prefix.slice(0, lastSpace);
  }
  fitted = fitted.trimEnd();
  // Re-encoding a cut text can, rarely, take more tokens than the slice it came from.
  while (fitted !== '' && countTokens(fitted) > maxTokens)
    fitted = fitted.replace(/\s*\S+\s*$/, '');
  return fitted;
}
