import { parse } from 'csv-parse/sync';
import { AppError, type ErrorDetail } from '@switchyard/shared';
import { assertValid, fieldNames, type CollectionKind, type Metadata } from './kinds';

export const IMPORT_FORMATS = ['jsonl', 'json', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A document as sent: its id and its kind's fields (validated later). */
export interface DocumentInput {
  id: string;
  fields: Record<string, unknown>;
  /** Where an imported document stands in its file (/content/line/7, /content/row/3), for error details. */
  at?: string;
}

/** A file's header (CSV column or JSON key) -> the field of the kind it holds, as the request names them. */
export type FieldMap = Record<string, string>;

export interface ParsedImport {
  documents: DocumentInput[];
  /** Headers the kind does not know, kept as metadata, in the order met. */
  metadataFields: string[];
}

const NUMERIC = new Set(['price']);
/** Several tags in one CSV cell: "concert|jazz" or "concert;jazz". */
const TAG_SEPARATOR = /[|;]/;
/** Course curricula as CSV: one row per lesson, these columns naming its module and lesson. */
const LESSON_COLUMNS = ['module', 'lesson', 'lesson_summary'];
/** A header "metadata.Öffnungszeiten" names metadata explicitly. */
const METADATA_PREFIX = 'metadata.';

/** "Start At", "start_at", "STARTSAT" -> "startsat": a header compared with field names. */
function looseName(header: string): string {
  return header
    .normalize('NFC')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

/** A header as kept: trimmed, in one Unicode form (a file from macOS writes "Straße" decomposed). */
function headerName(header: string): string {
  return header.normalize('NFC').trim();
}

type Target = { field: string } | { metadata: string };

/**
 * Where each header of a file goes: the field the request's field map names, else the kind's
 * field of that name (case, spaces, - and _ aside), else metadata under the header as written.
 */
class Headers {
  private readonly known = new Map<string, string>();
  private readonly mapped = new Map<string, string>();
  private readonly used = new Set<string>();
  readonly metadataFields: string[] = [];

  constructor(kind: CollectionKind, format: ImportFormat, fieldMap: FieldMap) {
    const lessons = kind === 'courses' && format === 'csv' ? LESSON_COLUMNS : [];
    const fields = ['id', ...fieldNames(kind), ...lessons];
    for (const field of fields) this.known.set(looseName(field), field);
    const problems: ErrorDetail[] = [];
    for (const [header, field] of Object.entries(fieldMap)) {
      const target = this.known.get(looseName(field));
      if (target) this.mapped.set(looseName(header), target);
      else
        problems.push({
          field: `/fieldMap/${header}`,
          reason: `must name a field of ${kind}: ${fields.join(', ')}`,
        });
    }
    assertValid(problems, 'the field map');
  }

  target(header: string): Target {
    const name = headerName(header);
    const loose = looseName(name);
    const mapped = this.mapped.get(loose);
    if (mapped) {
      this.used.add(loose);
      return { field: mapped };
    }
    if (name.startsWith(METADATA_PREFIX)) return { metadata: name.slice(METADATA_PREFIX.length) };
    const known = this.known.get(loose);
    if (known) return { field: known };
    if (!this.metadataFields.includes(name)) this.metadataFields.push(name);
    return { metadata: name };
  }

  /** A field map entry no header of the file matched is a typo: nothing is written. */
  assertAllUsed(fieldMap: FieldMap, headers: Iterable<string>): void {
    const seen = [...new Set(headers)].map(headerName);
    const problems = Object.keys(fieldMap)
      .filter((header) => !this.used.has(looseName(header)))
      .map((header) => ({
        field: `/fieldMap/${header}`,
        reason: `is not a header of the file (its headers: ${seen.join(', ').slice(0, 500)})`,
      }));
    assertValid(problems, 'the field map');
  }
}

/** A value kept as metadata: scalars as they are, lists joined, nested objects as JSON. */
function metadataValue(value: unknown): string | number | boolean | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
    return value;
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null))
    return value.filter((v) => v !== null).join(', ');
  return JSON.stringify(value);
}

/** The fields of one JSON record, by the headers' targets; another header naming a field already set is a problem. */
function jsonFields(
  record: Record<string, unknown>,
  headers: Headers,
  at: string,
  problems: ErrorDetail[],
): { id: unknown; fields: Record<string, unknown> } {
  const fields: Record<string, unknown> = {};
  const metadata: Metadata = {};
  const from = new Map<string, string>();
  for (const [header, value] of Object.entries(record)) {
    const target = headers.target(header);
    if ('metadata' in target) {
      const kept = metadataValue(value);
      if (kept !== undefined) metadata[target.metadata] = kept;
      continue;
    }
    const earlier = from.get(target.field);
    if (earlier !== undefined) {
      problems.push({
        field: `${at}/${header}`,
        reason: `gives ${target.field} again (after ${earlier})`,
      });
      continue;
    }
    from.set(target.field, header);
    if (value !== null) fields[target.field] = value;
  }
  const { id, ...rest } = fields;
  const explicit = rest.metadata;
  if (Object.keys(metadata).length > 0)
    rest.metadata =
      explicit && typeof explicit === 'object' && !Array.isArray(explicit)
        ? { ...metadata, ...explicit }
        : (explicit ?? metadata);
  return { id, fields: rest };
}

function idText(id: unknown): string {
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}

/** The records of a JSON file: an array of objects, or JSON Lines (one object per line). */
function jsonRecords(
  content: string,
  problems: ErrorDetail[],
): Array<{ record: Record<string, unknown>; at: string }> {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (content.trimStart().startsWith('[')) {
    let items: unknown;
    try {
      items = JSON.parse(content);
    } catch (error) {
      throw AppError.invalid(
        `the JSON array could not be parsed: ${(error as Error).message}`,
        '/content',
        (error as Error).message,
      );
    }
    const records: Array<{ record: Record<string, unknown>; at: string }> = [];
    (items as unknown[]).forEach((item, index) => {
      const at = `/content/item/${index + 1}`;
      if (isObject(item)) records.push({ record: item, at });
      else problems.push({ field: at, reason: 'not a JSON object' });
    });
    return records;
  }
  const records: Array<{ record: Record<string, unknown>; at: string }> = [];
  content.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const at = `/content/line/${index + 1}`;
    try {
      const value = JSON.parse(line) as unknown;
      if (!isObject(value)) throw new Error('not a JSON object');
      records.push({ record: value, at });
    } catch (error) {
      problems.push({ field: at, reason: (error as Error).message });
    }
  });
  return records;
}

function parseJson(content: string, headers: Headers, fieldMap: FieldMap): DocumentInput[] {
  const problems: ErrorDetail[] = [];
  const records = jsonRecords(content, problems);
  if (problems.length > 0)
    throw new AppError(
      'invalid_request',
      `${problems.length} record(s) are not JSON objects; first: ${problems[0]?.field}`,
      problems.slice(0, 50),
    );
  const documents = records.map(({ record, at }) => {
    const { id, fields } = jsonFields(record, headers, at, problems);
    return { id: idText(id), fields, at };
  });
  assertValid(problems, 'the file');
  headers.assertAllUsed(
    fieldMap,
    records.flatMap(({ record }) => Object.keys(record)),
  );
  return documents;
}

/** A CSV cell as a field value: numbers for numeric columns ("12,50" too), lists for tags. */
function cellValue(field: string, value: string): unknown {
  if (NUMERIC.has(field)) {
    const number = Number(/^-?\d+,\d+$/.test(value) ? value.replace(',', '.') : value);
    return value === '' || Number.isNaN(number) ? value : number;
  }
  if (field === 'tags')
    return value
      .split(TAG_SEPARATOR)
      .map((t) => t.trim())
      .filter(Boolean);
  return value;
}

/** One CSV row by target: the kind's fields (and id, module, lesson...) as text, and its metadata. */
interface CsvRow {
  cells: Record<string, string>;
  metadata: Metadata;
  at: string;
}

function rowFields(row: CsvRow, skip: readonly string[]): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(row.cells))
    if (!skip.includes(field) && value !== '') fields[field] = cellValue(field, value);
  if (Object.keys(row.metadata).length > 0) fields.metadata = row.metadata;
  return fields;
}

/** Course curricula as CSV: one row per lesson (id, title, ..., module, lesson, lesson_summary), grouped by id. */
function groupLessons(rows: CsvRow[]): DocumentInput[] {
  const courses = new Map<string, DocumentInput>();
  for (const row of rows) {
    const { id = '', module: moduleTitle, lesson, lesson_summary: summary } = row.cells;
    const course = courses.get(id) ?? {
      id,
      fields: { ...rowFields(row, ['id', ...LESSON_COLUMNS]), modules: [] },
      at: row.at,
    };
    courses.set(id, course);
    const modules = course.fields.modules as Array<{
      title: string;
      lessons: Array<{ title: string; summary?: string }>;
    }>;
    if (!moduleTitle) continue;
    let module = modules.find((m) => m.title === moduleTitle);
    if (!module) modules.push((module = { title: moduleTitle, lessons: [] }));
    if (lesson) module.lessons.push(summary ? { title: lesson, summary } : { title: lesson });
  }
  return [...courses.values()];
}

const DELIMITERS = [',', ';', '\t'];

/**
 * The delimiter of a CSV: the one of , ; tab its header row holds most of outside quotes
 * (spreadsheets in many locales write ";"). csv-parse's delimiter_auto reads lines without a
 * delimiter and fails on a quoted field, so the header row is counted here.
 */
function delimiterOf(content: string): string {
  const end = content.indexOf('\n');
  const header = end === -1 ? content : content.slice(0, end);
  const counts = new Map(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of header) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return [...counts].reduce((best, next) => (next[1] > best[1] ? next : best))[0];
}

function parseCsv(
  content: string,
  kind: CollectionKind,
  headers: Headers,
  fieldMap: FieldMap,
): DocumentInput[] {
  let table: string[][];
  try {
    table = parse(content, {
      skip_empty_lines: true,
      trim: true,
      bom: true,
      delimiter: delimiterOf(content),
    }) as string[][];
  } catch (error) {
    throw AppError.invalid(
      `the CSV could not be parsed: ${(error as Error).message}`,
      '/content',
      (error as Error).message,
    );
  }
  const [header = [], ...body] = table;
  // A column without a header (a trailing delimiter) is named by its place.
  const targets = header.map((h, column) => headers.target(h || `column ${column + 1}`));
  headers.assertAllUsed(fieldMap, header);
  const problems: ErrorDetail[] = [];
  const from = new Map<string, string>();
  targets.forEach((target, column) => {
    if (!('field' in target)) return;
    const earlier = from.get(target.field);
    if (earlier !== undefined)
      problems.push({
        field: `/content/header/${header[column]}`,
        reason: `gives ${target.field} again (after ${earlier})`,
      });
    from.set(target.field, header[column]!);
  });
  if (body.length > 0 && !from.has('id'))
    problems.push({
      field: '/content',
      reason: 'needs an id column (or a field map naming one: {"Nr": "id"})',
    });
  if (problems.length > 0)
    throw new AppError('invalid_request', `the CSV header: ${problems[0]?.reason}`, problems);
  const rows = body.map((cells, index): CsvRow => {
    const row: CsvRow = { cells: {}, metadata: {}, at: rowAt(index) };
    targets.forEach((target, column) => {
      const value = cells[column] ?? '';
      if ('field' in target) row.cells[target.field] = value;
      else if (value !== '') row.metadata[target.metadata] = value;
    });
    return row;
  });
  if (kind === 'courses' && from.has('module')) return groupLessons(rows);
  return rows.map((row) => ({
    id: row.cells.id ?? '',
    fields: rowFields(row, ['id']),
    at: row.at,
  }));
}

/** Data rows count from 1 after the header row. */
function rowAt(index: number): string {
  return `/content/row/${index + 1}`;
}

function isImportFormat(format: string): format is ImportFormat {
  return (IMPORT_FORMATS as readonly string[]).includes(format);
}

/**
 * Documents from an import file: JSON Lines, a JSON array (either under jsonl or json) or CSV,
 * UTF-8 with or without a byte order mark, lines ending in LF or CRLF. Headers the kind does not
 * know are kept as metadata; `fieldMap` maps a file's own headers to the kind's fields.
 */
export function parseImport(
  format: string,
  content: string,
  kind: CollectionKind,
  fieldMap: FieldMap = {},
): ParsedImport {
  if (!isImportFormat(format))
    throw AppError.invalid(
      `unknown import format '${format}'; use ${IMPORT_FORMATS.join(', ')}`,
      '/format',
      `must be one of ${IMPORT_FORMATS.join(', ')}`,
    );
  const headers = new Headers(kind, format, fieldMap);
  const text = content.replace(/^\uFEFF/, '');
  const documents =
    format === 'csv' ? parseCsv(text, kind, headers, fieldMap) : parseJson(text, headers, fieldMap);
  return { documents, metadataFields: headers.metadataFields };
}
