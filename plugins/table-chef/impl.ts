import type { Static } from '#typebox';
import { checkTextLength, ChunkdError, decodeUtf8, emptyStructure, isChunkdError, markdownStructure, requireExtra, type ChefImpl } from '../../kernel/index.js';
import { CSV_EXTRA } from './extra.js';
import type { TableChefConfig } from './index.js';

/**
 * Chonkie's TableChef: a CSV or TSV file becomes one markdown table (its first row the header, as
 * pandas' `to_markdown(index=False)` lays it out, without the padding), and the whole text is that
 * table's span; a text is kept as it is, with its markdown tables as spans.
 */
export function create(_config: Static<typeof TableChefConfig>): ChefImpl {
  return {
    async process(doc, { limits }) {
      if (doc.bytes === undefined) {
        const text = doc.text ?? '';
        return { text, structure: markdownStructure(text, { headings: false, code: false, images: false }), metadata: {} };
      }
      requireExtra(CSV_EXTRA, "The chef 'table' reading a CSV or TSV file");
      const source = decodeUtf8(doc.bytes);
      const tsv = /\.tsv$/i.test(doc.filename ?? '') || /tab-separated/i.test(doc.mime ?? '');
      const { parse } = await import('csv-parse/sync');
      // Padding makes every row as wide as the widest. When even the widest line over every line
      // (both over-counts: a quoted delimiter or line break counts too) fits the text limit, the
      // rows are parsed as they are; otherwise each record is counted as it is parsed, and the table
      // refused as soon as its rows, padded, pass the limit: a wide header over many short rows
      // stops within a few rows. (Counting each record costs csv-parse twice the time: only then.)
      const delimiter = tsv ? '\t' : ',';
      let count = 0;
      let width = 0;
      const bounded = (record: string[]) => {
        count++;
        if (record.length > width) width = record.length;
        checkTextLength(fewestTableChars(count, width), limits);
        return record;
      };
      const guard = fewestTableChars(...linesAndWidth(source, delimiter)) > limits.maxTextChars ? { on_record: bounded } : {};
      let rows: string[][];
      try {
        rows = parse(source, { delimiter, relax_column_count: true, bom: true, skip_empty_lines: true, quote: tsv ? false : '"', ...guard }) as string[][];
      } catch (e) {
        if (isChunkdError(e)) throw e;
        throw new ChunkdError(
          'VALIDATION',
          `The file could not be read as ${tsv ? 'TSV' : 'CSV'} (${(e as Error).message}): check its quoting, save it again as UTF-8 ${tsv ? 'TSV' : 'CSV'}, and upload it again.`,
        );
      }
      const text = markdownTable(rows);
      checkTextLength(text.length, limits);
      const structure = emptyStructure();
      if (text) structure.tables.push({ start: 0, end: text.length });
      return { text, structure, metadata: { rows: Math.max(0, rows.length - 1), columns: rows[0]?.length ?? 0 } };
    },
  };
}

/** Rows as a pipe table: the first row is the header; short rows are padded, `|` escaped, line breaks in a cell become <br>. */
export function markdownTable(rows: string[][]): string {
  if (rows.length === 0) return '';
  const width = tableWidth(rows);
  const cell = (s: string | undefined) =>
    (s ?? '')
      .replace(/\|/g, '\\|')
      .replace(/\r\n|\n|\r/g, '<br>')
      .trim();
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, k) => cell(r[k])).join(' | ')} |`;
  return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
}

/** The most cells of any row (a loop: a spread of every row into Math.max overflows the stack past ~100k rows). */
export function tableWidth(rows: string[][]): number {
  let width = 0;
  for (const r of rows) if (r.length > width) width = r.length;
  return width;
}

/** markdownTable's length were every cell empty: 3 characters a cell and 2 a row, the delimiter row 6 a column and 1. */
export const fewestTableChars = (rows: number, width: number): number => (rows === 0 ? 0 : rows * (3 * width + 2) + 6 * width + 1);

/** Lines and the most fields on a line, as if no field were quoted: at least the rows and the width csv-parse finds. */
export function linesAndWidth(source: string, delimiter: string): [lines: number, width: number] {
  const sep = delimiter.charCodeAt(0);
  let lines = 1;
  let fields = 1;
  let width = 1;
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i);
    if (c === sep) fields++;
    else if (c === 10 || c === 13) {
      if (fields > width) width = fields;
      fields = 1;
      lines++;
    }
  }
  return [lines, Math.max(width, fields)];
}
