/**
 * Finds tables in a text, as spans of the text itself (UTF-16 indices), never rewritten: a
 * markdown (GFM pipe) table is its header line, its delimiter row and the lines with a pipe that
 * follow; an HTML table is `<table …>` to its `</table>` (or the end of the text), its rows the
 * `<tr>` elements of that table (not of a table nested in it), its header the rows in `<thead>` or,
 * without a `<thead>`, the leading rows made only of `<th>` cells (what precedes the first data row is
 * the table's header span). A tolerant scan of tags, not an
 * HTML parser: offsets come straight from the match positions, nothing is normalized, and an
 * unclosed `<tr>` ends where the next row or the table does.
 */

export interface Range {
  start: number;
  end: number;
}

export interface Table extends Range {
  format: 'markdown' | 'html';
  /** Everything before the first data row: markdown's header line and delimiter row; HTML's `<table …>` tag, caption, header rows and `<tbody>`. */
  header?: Range;
  /** Data rows in order; a markdown row includes its line break. */
  rows: Range[];
}

/** Every table of `text`, in order, not overlapping. */
export function findTables(text: string): Table[] {
  const tables = [...markdownTables(text), ...htmlTables(text)].sort((a, b) => a.start - b.start);
  const out: Table[] = [];
  for (const t of tables) if (!out.length || t.start >= out[out.length - 1]!.end) out.push(t); // a pipe table inside an HTML cell belongs to that table
  return out.filter((t) => t.rows.length > 0);
}

/**
 * A GFM delimiter row: cells of dashes with optional alignment colons, between optional outer
 * pipes; one column needs a pipe. Checked cell by cell, in linear time (a regex with adjacent
 * optional runs of spaces backtracks quadratically on a long line of them).
 */
function isDelimiterRow(line: string): boolean {
  let s = line.trim();
  if (!s.includes('|')) return false;
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  return s.split('|').every((cell) => DASHES.test(cell.trim()));
}
const DASHES = /^:?-+:?$/;

function markdownTables(text: string): Table[] {
  const lines = lineRanges(text);
  const hasPipe = pipeFinder(text);
  const tables: Table[] = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const head = lines[i]!;
    const delim = lines[i + 1]!;
    if (!hasPipe(head) || !hasPipe(delim) || !isDelimiterRow(text.slice(delim.start, delim.end))) continue;
    const rows: Range[] = [];
    let j = i + 2;
    for (; j < lines.length && hasPipe(lines[j]!); j++) rows.push(lines[j]!); // a line with a pipe is not blank
    const end = rows.length ? rows[rows.length - 1]!.end : delim.end;
    tables.push({ format: 'markdown', start: head.start, end, header: { start: head.start, end: delim.end }, rows });
    i = j - 1;
  }
  return tables;
}

/** Whether a line holds a `|`, for lines asked in increasing order: the next pipe is found once, not once per line (linear, not quadratic, on text without pipes). */
function pipeFinder(text: string): (line: Range) => boolean {
  let next = -2; // position of the next pipe at or after the last line asked about; -1: none left
  return (line) => {
    if (next !== -1 && next < line.start) next = text.indexOf('|', line.start);
    return next >= 0 && next < line.end;
  };
}

/** Lines with their line break (`\n`, so a CRLF line ends after its `\r\n`). */
function lineRanges(text: string): Range[] {
  const out: Range[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl + 1;
    out.push({ start, end });
    start = end;
  }
  return out;
}

/** `[^<>]*`: a tag that never closes stops the scan at the next `<`, so the scan stays linear. */
const TAG = /<(\/?)(table|thead|tbody|tfoot|tr|th|td)\b[^<>]*>/gi;

function htmlTables(text: string): Table[] {
  const tables: Table[] = [];
  TAG.lastIndex = 0;
  let table:
    | {
        start: number;
        depth: number;
        rows: (Range & { header: boolean })[];
        inHead: boolean;
        sawHead: boolean;
        onlyHeaders: boolean;
        row?: { start: number; th: boolean; cells: number; header: boolean };
      }
    | undefined;
  const closeRow = (at: number) => {
    if (table?.row) {
      const r = table.row;
      const header = r.header || (!table.sawHead && r.th && r.cells > 0 && table.onlyHeaders);
      table.onlyHeaders &&= header;
      table.rows.push({ start: r.start, end: at, header });
      table.row = undefined;
    }
  };
  for (let m = TAG.exec(text); m; m = TAG.exec(text)) {
    const closing = m[1] === '/';
    const name = m[2]!.toLowerCase();
    const at = m.index;
    const after = at + m[0].length;
    if (name === 'table') {
      if (!closing) {
        if (!table) table = { start: at, depth: 1, rows: [], inHead: false, sawHead: false, onlyHeaders: true };
        else table.depth++;
        continue;
      }
      if (!table) continue;
      if (--table.depth > 0) continue;
      closeRow(at);
      tables.push(finishHtml(table.start, after, table.rows));
      table = undefined;
      continue;
    }
    if (!table || table.depth !== 1) continue; // a nested table's rows are inside a cell of this one
    if (name === 'thead') {
      if (!closing) ((table.inHead = true), (table.sawHead = true));
      else (closeRow(at), (table.inHead = false));
    } else if (name === 'tbody' || name === 'tfoot') {
      closeRow(at);
      table.inHead = false;
    } else if (name === 'tr') {
      if (!closing) {
        closeRow(at);
        table.row = { start: at, th: true, cells: 0, header: table.inHead };
      } else if (table.row) closeRow(after);
    } else if (!closing && table.row) {
      table.row.cells++;
      if (name === 'td') table.row.th = false;
    }
  }
  if (table) {
    closeRow(text.length);
    tables.push(finishHtml(table.start, text.length, table.rows));
  }
  return tables;
}

function finishHtml(start: number, end: number, rows: (Range & { header: boolean })[]): Table {
  const data = rows.filter((r) => !r.header).map(({ start: s, end: e }) => ({ start: s, end: e }));
  // The header is everything before the first data row: the <table> tag, a caption, the header rows, a <tbody>.
  return { format: 'html', start, end, header: data.length ? { start, end: data[0]!.start } : undefined, rows: data };
}
