import { Buffer } from 'node:buffer';
import { countTokens } from './count';

/** Up to this many characters, the estimate is the exact count (a few ms at most). */
export const EXACT_ESTIMATE_CHARS = 16_384;
const SAMPLE_WINDOWS = 16;
const WINDOW_CHARS = EXACT_ESTIMATE_CHARS / SAMPLE_WINDOWS;

/**
 * Tokens for limits and reservations, in bounded time: the exact count up to EXACT_ESTIMATE_CHARS;
 * beyond, the count of 16 evenly spaced windows scaled to the whole text, never above its UTF-8
 * length (no token is shorter than a byte). What a call really used settles the reservation later.
 */
export function estimateTokens(text: string): number {
  if (text.length <= EXACT_ESTIMATE_CHARS) return countTokens(text);
  const stride = (text.length - WINDOW_CHARS) / (SAMPLE_WINDOWS - 1);
  let sampled = 0;
  for (let window = 0; window < SAMPLE_WINDOWS; window++) {
    const start = Math.floor(window * stride);
    sampled += countTokens(text.slice(start, start + WINDOW_CHARS));
  }
  const scaled = Math.ceil((sampled * text.length) / EXACT_ESTIMATE_CHARS);
  return Math.min(scaled, Buffer.byteLength(text, 'utf8'));
}
