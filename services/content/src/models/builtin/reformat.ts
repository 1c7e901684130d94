import { AppError } from '@switchyard/shared';
import type { TextFormat } from '../text-model';
import { describeRow, stripInline, tableRecords, type Block } from './document';
import { csvDelimiter, parseCsv, toCsv } from './csv';
import { detectFormat } from './detect-format';
import { parseHtml, renderHtml } from './html';
import { parseMarkdown, renderMarkdown } from './markdown';
import { asSentence, splitSentences } from './text';

export { detectFormat };

function jsonValueText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'string'
    ? value
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseJson(text: string): Block[] {
  const value: unknown = JSON.parse(text);
  const records =
    Array.isArray(value) && value.length > 0 && value.every(isRecord)
      ? value
      : isRecord(value)
        ? [value]
        : undefined;
  if (records) {
    const headers = [...new Set(records.flatMap((record) => Object.keys(record)))];
    return [
      {
        kind: 'table',
        headers,
        rows: records.map((record) => headers.map((h) => jsonValueText(record[h]))),
      },
    ];
  }
  if (Array.isArray(value))
    return [{ kind: 'list', ordered: false, items: value.map(jsonValueText) }];
  return [{ kind: 'paragraph', text: jsonValueText(value) }];
}

function parseCsvTable(text: string): Block[] {
  const [headers = [], ...rows] = parseCsv(text, csvDelimiter(text) ?? ',');
  return [{ kind: 'table', headers, rows }];
}

function parseProse(text: string, oneLinePerBlock: boolean): Block[] {
  const chunks = oneLinePerBlock ? text.split(/\r?\n/) : text.split(/\r?\n\s*\r?\n/);
  return chunks
    .map((chunk) => chunk.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .map((text) => ({ kind: 'paragraph', text }));
}

export function parseAs(format: TextFormat, text: string): Block[] {
  switch (format) {
    case 'json':
      return parseJson(text);
    case 'csv':
      return parseCsvTable(text);
    case 'html':
      return parseHtml(text);
    case 'markdown':
    case 'bullet_list':
    case 'numbered_list':
      return parseMarkdown(text);
    case 'paragraph':
      return parseProse(text, false);
    case 'plain':
      return parseProse(text, true);
  }
}

/** Every block as a flat sequence of items: sentences of prose, list items, table rows, headings. */
function items(blocks: Block[]): string[] {
  return blocks.flatMap((block) => {
    switch (block.kind) {
      case 'heading':
        return [stripInline(block.text)];
      case 'paragraph':
        return splitSentences(stripInline(block.text));
      case 'list':
        return block.items.map(stripInline);
      case 'table':
        return tableRecords(block).map(describeRow);
      case 'code':
        return block.text.split('\n').filter((line) => line.trim() !== '');
    }
  });
}

function renderParagraphs(blocks: Block[]): string {
  return blocks
    .map((block) => {
      if (block.kind === 'paragraph') return stripInline(block.text);
      if (block.kind === 'code') return block.text;
      return items([block]).map(asSentence).join(' ');
    })
    .join('\n\n');
}

function renderPlain(blocks: Block[]): string {
  return blocks
    .map((block) =>
      block.kind === 'paragraph'
        ? stripInline(block.text)
        : block.kind === 'code'
          ? block.text
          : items([block]).join('\n'),
    )
    .join('\n\n');
}

/** CSV cells that are plain numbers become JSON numbers; anything else (e.g. "007") stays a string. */
function jsonCell(value: string): string | number {
  return /^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(value) ? Number(value) : value;
}

function renderJson(blocks: Block[]): string {
  const content = blocks.filter((b) => b.kind !== 'heading');
  const only = content.length === 1 ? content[0] : undefined;
  if (only?.kind === 'table') {
    const records = tableRecords(only).map((r) =>
      Object.fromEntries(Object.entries(r).map(([k, v]) => [k, jsonCell(v)])),
    );
    return JSON.stringify(records, null, 2);
  }
  return JSON.stringify(items(blocks), null, 2);
}

function renderCsv(blocks: Block[], source: TextFormat): string {
  const tables = blocks.filter((b): b is Extract<Block, { kind: 'table' }> => b.kind === 'table');
  const first = tables[0];
  if (!first || tables.some((t) => t.headers.join('\u0000') !== first.headers.join('\u0000'))) {
    throw AppError.unsupported(
      `cannot convert ${source} to csv: csv needs one table of rows with named columns ` +
        `(a JSON array of objects, csv, or an HTML or Markdown table), and this input has ${tables.length === 0 ? 'none' : 'tables of different columns'}`,
      [{ field: '/format', reason: `no ${source} -> csv conversion for this input` }],
    );
  }
  return toCsv(
    first.headers,
    tables.flatMap((t) => t.rows),
  );
}

function renderList(blocks: Block[], ordered: boolean): string {
  return items(blocks)
    .map((item, i) => `${ordered ? `${i + 1}.` : '-'} ${item}`)
    .join('\n');
}

export function renderAs(format: TextFormat, blocks: Block[], source: TextFormat): string {
  switch (format) {
    case 'paragraph':
      return renderParagraphs(blocks);
    case 'plain':
      return renderPlain(blocks);
    case 'bullet_list':
      return renderList(blocks, false);
    case 'numbered_list':
      return renderList(blocks, true);
    case 'markdown':
      return renderMarkdown(blocks);
    case 'html':
      return renderHtml(blocks);
    case 'json':
      return renderJson(blocks);
    case 'csv':
      return renderCsv(blocks, source);
  }
}

/** Detects the input's format and converts it to the target format. */
export function reformat(
  text: string,
  target: TextFormat,
): { text: string; originalFormat: TextFormat } {
  const originalFormat = detectFormat(text);
  const blocks = parseAs(originalFormat, text.trim());
  return { text: renderAs(target, blocks, originalFormat), originalFormat };
}
