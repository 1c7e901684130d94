import type { TextFormat } from '../text-model';
import { csvDelimiter } from './csv';

const BULLET_LINE = /^\s*[-*+•]\s+\S/;
const NUMBERED_LINE = /^\s*\d+[.)]\s+\S/;
const KNOWN_HTML_TAG =
  /<(html|body|head|div|p|span|br|hr|h[1-6]|ul|ol|li|table|tr|td|th|a|strong|em|b|i|pre|code|section|article|blockquote|img)\b[^>]*\/?>/i;
const MARKDOWN_SIGNS = [
  /^#{1,6}\s+\S/m, // heading
  /\*\*[^*\n]+\*\*|__[^_\n]+__/, // strong
  /(^|[^\w*])\*[^*\s][^*\n]*\*(?!\w)/, // emphasis
  /\[[^\]\n]+\]\([^)\s]+\)/, // link
  /^\s*(```|~~~)/m, // fence
  /^\s*>\s+\S/m, // quote
  /^\s*\|.*\|\s*$\n^\s*\|?\s*:?-{3,}/m, // table
  /`[^`\n]+`/, // code span
];

function nonEmptyLines(text: string): string[] {
  return text.split(/\r?\n/).filter((line) => line.trim() !== '');
}

function isJson(text: string): boolean {
  if (!/^[[{]/.test(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** CSV needs at least two rows of the same width and short, header-like first-row fields. */
function isCsv(text: string): boolean {
  const delimiter = csvDelimiter(text);
  if (!delimiter) return false;
  const header = text.split(/\r?\n/)[0]!.split(delimiter);
  return header.every(
    (field) => field.trim() !== '' && field.trim().length <= 40 && !/[.!?]$/.test(field.trim()),
  );
}

/** Prose: the text ends its sentences with terminal punctuation and reads as running words. */
function isParagraph(text: string): boolean {
  const sentenceEnds = text.match(/[\p{L}\p{N})"'»”][.!?…](?=\s|$)/gu)?.length ?? 0;
  const lines = nonEmptyLines(text);
  const endsAsSentence = /[.!?…]["')»”]?$/.test(text);
  const averageLineLength = text.length / Math.max(lines.length, 1);
  return sentenceEnds >= 1 && endsAsSentence && averageLineLength >= 30;
}

/**
 * The input's format, checked from the most to the least structured: json, html, lists,
 * markdown, csv, paragraph prose; plain for anything else (short lines, no sentence structure).
 */
export function detectFormat(input: string): TextFormat {
  const text = input.trim();
  if (text === '') return 'plain';
  if (isJson(text)) return 'json';
  if (KNOWN_HTML_TAG.test(text) && /<\/?[a-z][a-z0-9]*\b[^>]*>/i.test(text)) return 'html';
  const lines = nonEmptyLines(text);
  if (lines.every((line) => NUMBERED_LINE.test(line))) return 'numbered_list';
  if (lines.every((line) => BULLET_LINE.test(line))) return 'bullet_list';
  if (MARKDOWN_SIGNS.some((sign) => sign.test(text))) return 'markdown';
  // Lists mixed with other lines (e.g. an intro line) read as Markdown.
  if (lines.some((line) => BULLET_LINE.test(line) || NUMBERED_LINE.test(line))) return 'markdown';
  if (isCsv(text)) return 'csv';
  if (isParagraph(text)) return 'paragraph';
  return 'plain';
}
