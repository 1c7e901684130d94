/** RFC 4180 CSV: quoted fields, doubled quotes, CRLF or LF line ends. */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) {
      row.push(field);
      field = '';
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += char;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows
    .filter((r) => !(r.length === 1 && r[0]!.trim() === ''))
    .map((r) => r.map((f) => f.trim()));
}

function quoteField(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim()
    ? `"${value.replace(/"/g, '""')}"`
    : value;
}

export function toCsv(headers: string[], rows: string[][]): string {
  return [headers, ...rows].map((row) => row.map(quoteField).join(',')).join('\n');
}

/** The delimiter a CSV-looking text uses: comma, semicolon or tab, whichever splits every line the same way. */
export function csvDelimiter(text: string): string | undefined {
  for (const delimiter of [',', ';', '\t']) {
    const rows = parseCsv(text, delimiter);
    const width = rows[0]?.length ?? 0;
    if (rows.length >= 2 && width >= 2 && rows.every((r) => r.length === width)) return delimiter;
  }
  return undefined;
}
