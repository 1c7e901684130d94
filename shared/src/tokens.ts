import { countTokens as countO200k, encode, decode } from 'gpt-tokenizer';

/**
 * Token counts with the o200k_base BPE (the tokenizer of current OpenAI models), used for the
 * builtin engine's usage and for pre-flight size limits.
 */
export function countTokens(text: string): number {
  return text.length === 0 ? 0 : countO200k(text);
}

/** The longest prefix of text that fits in maxTokens tokens. */
export function truncateToTokens(text: string, maxTokens: number): string {
  const tokens = encode(text);
  return tokens.length <= maxTokens ? text : decode(tokens.slice(0, maxTokens));
}
