import { stripInline, type Block } from './document';

const NAMED_ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  laquo: '«',
  raquo: '»',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  deg: '°',
  middot: '·',
  bull: '•',
  times: '×',
  eacute: 'é',
  egrave: 'è',
  ecirc: 'ê',
  agrave: 'à',
  acirc: 'â',
  ccedil: 'ç',
  ocirc: 'ô',
  ucirc: 'û',
  ugrave: 'ù',
  iuml: 'ï',
  euml: 'ë',
  auml: 'ä',
  ouml: 'ö',
  uuml: 'ü',
  Auml: 'Ä',
  Ouml: 'Ö',
  Uuml: 'Ü',
  szlig: 'ß',
  ntilde: 'ñ',
  Ntilde: 'Ñ',
  aacute: 'á',
  iacute: 'í',
  oacute: 'ó',
  uacute: 'ú',
  Eacute: 'É',
  iexcl: '¡',
  iquest: '¿',
};

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X'
          ? parseInt(name.slice(2), 16)
          : parseInt(name.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff
        ? String.fromCodePoint(code)
        : whole;
    }
    return NAMED_ENTITIES[name] ?? whole;
  });
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** Inline Markdown (as kept in blocks) to HTML; the text is escaped first. */
export function inlineToHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, '<a href="$2">$1</a>')
    .replace(/(\*\*|__)(.+?)\1/g, '<strong>$2</strong>')
    .replace(/(^|[^\p{L}\p{N}*_])([*_])(?=\S)(.+?)(?<=\S)\2(?![\p{L}\p{N}])/gu, '$1<em>$3</em>');
}

export function renderHtml(blocks: Block[]): string {
  return blocks
    .map((block) => {
      switch (block.kind) {
        case 'heading':
          return `<h${block.level}>${inlineToHtml(block.text)}</h${block.level}>`;
        case 'paragraph':
          return `<p>${inlineToHtml(block.text)}</p>`;
        case 'code':
          return `<pre><code>${escapeHtml(block.text)}</code></pre>`;
        case 'list': {
          const tag = block.ordered ? 'ol' : 'ul';
          return `<${tag}>\n${block.items.map((item) => `  <li>${inlineToHtml(item)}</li>`).join('\n')}\n</${tag}>`;
        }
        case 'table': {
          const head = `  <tr>${block.headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr>`;
          const rows = block.rows.map(
            (r) => `  <tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`,
          );
          return `<table>\n${[head, ...rows].join('\n')}\n</table>`;
        }
      }
    })
    .join('\n');
}

/** Tags whose content is not text. */
const DROPPED = /<(script|style|head|template|noscript)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const BLOCK_TAGS = new Set([
  'p',
  'div',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'aside',
  'blockquote',
  'br',
  'hr',
  'body',
  'html',
  'nav',
  'figure',
  'figcaption',
]);

interface Builder {
  blocks: Block[];
  text: string;
  list?: { ordered: boolean; items: string[] };
  item?: string;
  heading?: number;
  table?: {
    rows: string[][];
    headers: string[];
    row?: string[];
    cell?: string;
    headerRow: boolean;
  };
  pre: boolean;
  linkHref?: string;
}

function cleanInline(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Appends text (already decoded) to whatever is open: a cell, a list item or the current paragraph. */
function appendText(b: Builder, text: string): void {
  if (b.table?.cell !== undefined) b.table.cell += text;
  else if (b.item !== undefined) b.item += text;
  else b.text += text;
}

function flushParagraph(b: Builder): void {
  const text = b.pre ? b.text.replace(/^\n+|\s+$/g, '') : cleanInline(b.text);
  if (text !== '') {
    if (b.pre) b.blocks.push({ kind: 'code', text: stripInline(text) });
    else if (b.heading) b.blocks.push({ kind: 'heading', level: b.heading, text });
    else b.blocks.push({ kind: 'paragraph', text });
  }
  b.text = '';
}

function onTag(b: Builder, name: string, closing: boolean, attributes: string): void {
  const inline: Record<string, string> = { strong: '**', b: '**', em: '*', i: '*', code: '`' };
  if (inline[name] && !b.pre) return appendText(b, inline[name]!);
  if (name === 'a') {
    const href = /href\s*=\s*["']([^"']*)["']/i.exec(attributes)?.[1];
    // Only the closing tag is known to lack href; links keep their target as [text](url).
    if (!closing && href) appendText(b, '[');
    if (closing && b.linkHref) appendText(b, `](${b.linkHref})`);
    b.linkHref = closing ? undefined : href;
    return;
  }
  if (/^h[1-6]$/.test(name)) {
    flushParagraph(b);
    b.heading = closing ? undefined : Number(name[1]);
    return;
  }
  if (name === 'pre') {
    flushParagraph(b);
    b.pre = !closing;
    return;
  }
  if (name === 'ul' || name === 'ol') {
    flushParagraph(b);
    if (!closing) b.list = { ordered: name === 'ol', items: [] };
    else if (b.list) {
      b.blocks.push({ kind: 'list', ...b.list });
      b.list = undefined;
    }
    return;
  }
  if (name === 'li') {
    if (b.item !== undefined && cleanInline(b.item)) b.list?.items.push(cleanInline(b.item));
    b.item = closing ? undefined : '';
    if (!b.list && !closing) b.list = { ordered: false, items: [] };
    return;
  }
  if (name === 'table') {
    flushParagraph(b);
    if (!closing) b.table = { rows: [], headers: [], headerRow: false };
    else if (b.table) {
      const [first, ...rest] =
        b.table.headers.length > 0 ? [b.table.headers, ...b.table.rows] : b.table.rows;
      if (first) b.blocks.push({ kind: 'table', headers: first, rows: rest });
      b.table = undefined;
    }
    return;
  }
  if (b.table && name === 'tr') {
    if (!closing) b.table.row = [];
    else if (b.table.row) {
      if (b.table.headerRow && b.table.headers.length === 0) b.table.headers = b.table.row;
      else b.table.rows.push(b.table.row);
      b.table.row = undefined;
      b.table.headerRow = false;
    }
    return;
  }
  if (b.table && (name === 'td' || name === 'th')) {
    if (!closing) {
      b.table.cell = '';
      if (name === 'th') b.table.headerRow = true;
    } else if (b.table.cell !== undefined) {
      b.table.row?.push(cleanInline(b.table.cell));
      b.table.cell = undefined;
    }
    return;
  }
  if (BLOCK_TAGS.has(name)) flushParagraph(b);
}

/** A tolerant HTML reader producing blocks; unknown tags are ignored, entities decoded. */
export function parseHtml(html: string): Block[] {
  const b: Builder = { blocks: [], text: '', pre: false };
  const source = html
    .replace(DROPPED, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<!doctype[^>]*>/gi, '');
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)\b([^>]*)>|([^<]+|<)/g;
  for (let match = token.exec(source); match; match = token.exec(source)) {
    if (match[4] !== undefined) appendText(b, decodeEntities(match[4]));
    else onTag(b, match[2]!.toLowerCase(), match[1] === '/', match[3] ?? '');
  }
  if (b.item !== undefined && cleanInline(b.item)) b.list?.items.push(cleanInline(b.item));
  if (b.list) b.blocks.push({ kind: 'list', ...b.list });
  flushParagraph(b);
  return b.blocks;
}
