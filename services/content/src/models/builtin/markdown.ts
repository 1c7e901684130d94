import type { Block } from './document';

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const BULLET = /^\s*[-*+•]\s+(.*)$/;
const NUMBERED = /^\s*\d+[.)]\s+(.*)$/;
const TABLE_ROW = /^\s*\|.*\|\s*$/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;

function tableCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split('|')
    .map((cell) => cell.trim());
}

/** Reads a list starting at lines[start]; returns the block and the index after it. */
function readList(lines: string[], start: number): { block: Block; next: number } {
  const ordered = NUMBERED.test(lines[start]!);
  const marker = ordered ? NUMBERED : BULLET;
  const items: string[] = [];
  let i = start;
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const match = marker.exec(line) ?? (ordered ? BULLET : NUMBERED).exec(line);
    if (match) items.push(match[1]!.trim());
    else if (line.trim() !== '' && /^\s+/.test(line) && items.length > 0)
      items[items.length - 1] += ` ${line.trim()}`;
    else break;
  }
  return { block: { kind: 'list', ordered, items }, next: i };
}

/** Line-based Markdown reader: ATX headings, lists, fenced code, pipe tables, quotes, paragraphs. */
export function parseMarkdown(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', text: paragraph.join(' ') });
    paragraph = [];
  };
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const heading = HEADING.exec(line);
    if (line.trim() === '' || /^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flush();
      i++;
    } else if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      i++;
    } else if (/^\s*(```|~~~)/.test(line)) {
      flush();
      const fence = line.trim().slice(0, 3);
      const end = lines.findIndex((l, j) => j > i && l.trim().startsWith(fence));
      const stop = end === -1 ? lines.length : end;
      blocks.push({ kind: 'code', text: lines.slice(i + 1, stop).join('\n') });
      i = stop + 1;
    } else if (BULLET.test(line) || NUMBERED.test(line)) {
      flush();
      const { block, next } = readList(lines, i);
      blocks.push(block);
      i = next;
    } else if (TABLE_ROW.test(line) && TABLE_RULE.test(lines[i + 1] ?? '')) {
      flush();
      const headers = tableCells(line);
      const rows: string[][] = [];
      for (i += 2; i < lines.length && TABLE_ROW.test(lines[i]!); i++)
        rows.push(tableCells(lines[i]!));
      blocks.push({ kind: 'table', headers, rows });
    } else {
      paragraph.push(line.replace(/^\s*>\s?/, '').trim());
      i++;
    }
  }
  flush();
  return blocks;
}

export function renderMarkdown(blocks: Block[]): string {
  return blocks
    .map((block) => {
      switch (block.kind) {
        case 'heading':
          return `${'#'.repeat(block.level)} ${block.text}`;
        case 'paragraph':
          return block.text;
        case 'code':
          return `\`\`\`\n${block.text}\n\`\`\``;
        case 'list':
          return block.items
            .map((item, i) => `${block.ordered ? `${i + 1}.` : '-'} ${item}`)
            .join('\n');
        case 'table': {
          const row = (cells: string[]) =>
            `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
          return [
            row(block.headers),
            row(block.headers.map(() => '---')),
            ...block.rows.map(row),
          ].join('\n');
        }
      }
    })
    .join('\n\n');
}
