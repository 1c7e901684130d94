/**
 * The format-neutral document every reformat goes through: parse(input format) -> blocks ->
 * render(target format). Inline text keeps Markdown emphasis (**bold**, *em*, `code`, [a](url))
 * so that emphasis survives between Markdown and HTML and is stripped for prose targets.
 */
export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; ordered: boolean; items: string[] }
  | { kind: 'table'; headers: string[]; rows: string[][] }
  | { kind: 'code'; text: string };

/** Removes inline Markdown, leaving the words. */
export function stripInline(text: string): string {
  return text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[^\p{L}\p{N}*_])([*_])(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}])/gu, '$1$3')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/~~(.+?)~~/g, '$1');
}

/** Rows of a table as records keyed by header, for JSON output and prose. */
export function tableRecords(block: Extract<Block, { kind: 'table' }>): Record<string, string>[] {
  return block.rows.map((row) =>
    Object.fromEntries(block.headers.map((header, i) => [header, row[i] ?? ''])),
  );
}

/** "name: Ada, role: engineer" for one table row. */
export function describeRow(record: Record<string, string>): string {
  return Object.entries(record)
    .filter(([, value]) => value !== '')
    .map(([key, value]) => `${key}: ${value}`)
    .join(', ');
}
