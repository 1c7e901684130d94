import { parse } from 'csv-parse/sync';
import { AppError, type ErrorDetail } from '@switchyard/shared';
import type { CollectionKind } from './kinds';

export const IMPORT_FORMATS = ['jsonl', 'csv'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** A document as sent: its id and its kind's fields (validated later). */
export interface DocumentInput {
  id: string;
  fields: Record<string, unknown>;
  /** Where an imported document stands in its file (/content/line/7, /content/row/3), for error details. */
  at?: string;
}

const NUMERIC = new Set(['price']);
/** Several tags in one CSV cell: "concert|jazz" or "concert;jazz". */
const TAG_SEPARATOR = /[|;]/;

function parseJsonLines(content: string): DocumentInput[] {
  const documents: DocumentInput[] = [];
  const problems: ErrorDetail[] = [];
  content.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      const value = JSON.parse(line) as unknown;
      if (typeof value !== 'object' || value === null || Array.isArray(value))
        throw new Error('not a JSON object');
      const { id, ...fields } = value as Record<string, unknown>;
      documents.push({
        id: typeof id === 'string' || typeof id === 'number' ? String(id) : '',
        fields,
        at: `/content/line/${index + 1}`,
      });
    } catch (error) {
      problems.push({ field: `/content/line/${index + 1}`, reason: (error as Error).message });
    }
  });
  if (problems.length > 0)
    throw new AppError(
      'invalid_request',
      `${problems.length} line(s) are not JSON objects; first: line ${problems[0]?.field?.split('/').pop()}`,
      problems.slice(0, 50),
    );
  return documents;
}

/** A CSV cell as a field value: numbers for numeric columns, lists for tags, '' dropped. */
function cellValue(column: string, value: string): unknown {
  if (NUMERIC.has(column))
    return value.trim() === '' || Number.isNaN(Number(value)) ? value : Number(value);
  if (column === 'tags')
    return value
      .split(TAG_SEPARATOR)
      .map((t) => t.trim())
      .filter(Boolean);
  return value;
}

function rowFields(row: Record<string, string>, skip: Set<string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  for (const [column, value] of Object.entries(row)) {
    if (skip.has(column) || value === '') continue;
    if (column.startsWith('metadata.')) metadata[column.slice('metadata.'.length)] = value;
    else fields[column] = cellValue(column, value);
  }
  if (Object.keys(metadata).length > 0) fields.metadata = metadata;
  return fields;
}

const LESSON_COLUMNS = new Set(['id', 'module', 'lesson', 'lesson_summary']);

/** Course curricula as CSV: one row per lesson (id, title, ..., module, lesson, lesson_summary), grouped by id. */
function groupLessons(rows: Record<string, string>[]): DocumentInput[] {
  const courses = new Map<string, DocumentInput>();
  for (const [index, row] of rows.entries()) {
    const id = row.id ?? '';
    const course = courses.get(id) ?? {
      id,
      fields: { ...rowFields(row, LESSON_COLUMNS), modules: [] },
      at: rowAt(index),
    };
    courses.set(id, course);
    const modules = course.fields.modules as Array<{
      title: string;
      lessons: Array<{ title: string; summary?: string }>;
    }>;
    if (!row.module) continue;
    let module = modules.find((m) => m.title === row.module);
    if (!module) modules.push((module = { title: row.module, lessons: [] }));
    if (row.lesson)
      module.lessons.push(
        row.lesson_summary
          ? { title: row.lesson, summary: row.lesson_summary }
          : { title: row.lesson },
      );
  }
  return [...courses.values()];
}

function parseCsv(content: string, kind: CollectionKind): DocumentInput[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(content, {
      columns: true,
      skip_empty_lines: true,
      trim: true,
      bom: true,
    }) as Record<string, string>[];
  } catch (error) {
    throw AppError.invalid(
      `the CSV could not be parsed: ${(error as Error).message}`,
      '/content',
      (error as Error).message,
    );
  }
  if (rows.length > 0 && !('id' in (rows[0] ?? {})))
    throw AppError.invalid('the CSV needs an id column', '/content', 'needs an id column');
  if (kind === 'courses' && rows.length > 0 && 'module' in (rows[0] ?? {}))
    return groupLessons(rows);
  return rows.map((row, index) => ({
    id: row.id ?? '',
    fields: rowFields(row, new Set(['id'])),
    at: rowAt(index),
  }));
}

/** Data rows count from 1 after the header row. */
function rowAt(index: number): string {
  return `/content/row/${index + 1}`;
}

/** Documents from an import file of a format. */
export function parseImport(
  format: string,
  content: string,
  kind: CollectionKind,
): DocumentInput[] {
  if (format === 'jsonl') return parseJsonLines(content);
  if (format === 'csv') return parseCsv(content, kind);
  throw AppError.invalid(
    `unknown import format '${format}'; use jsonl or csv`,
    '/format',
    'must be jsonl or csv',
  );
}
