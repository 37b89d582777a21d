// CSV as RFC 4180 writes it: comma-separated, fields in double quotes may hold commas, quotes ("") and
// line breaks; CRLF or LF line ends; a UTF-8 byte order mark is ignored. Pure text in, rows out.

/** The rows of a CSV text (a blank last line is not a row); an Error naming the line for an unclosed quote. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let quoteLine = 0;
  const endRow = () => {
    row.push(field);
    rows.push(row);
    row = [];
    field = '';
  };
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  for (let i = 0; i < src.length; i++) {
    const ch = src[i]!;
    if (quoted) {
      if (ch === '"' && src[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && src[i + 1] === '\n') i++;
      endRow();
      line++;
    } else field += ch;
  }
  if (quoted) throw new Error(`line ${quoteLine}: a quoted field is not closed`);
  if (field !== '' || row.length) endRow();
  return rows.filter((r) => r.some((cell) => cell.trim() !== ''));
}

/** The rows after the header as records keyed by the header's names (trimmed, lower-case); blank cells left out. */
export function csvRecords(text: string): { header: string[]; records: Record<string, string>[] } {
  const [head = [], ...rows] = parseCsv(text);
  const header = head.map((h) => h.trim().toLowerCase());
  const records = rows.map((cells) => {
    const record: Record<string, string> = {};
    header.forEach((name, i) => {
      const value = cells[i]?.trim() ?? '';
      if (name && value !== '') record[name] = value;
    });
    return record;
  });
  return { header, records };
}
