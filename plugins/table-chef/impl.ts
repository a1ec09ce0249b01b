import type { Static } from 'typebox';
import { decodeUtf8 } from '../../kernel/chef/decode.js';
import { emptyStructure } from '../../kernel/chef/document.js';
import { checkTextLength } from '../../kernel/chef/errors.js';
import { ChunkdError, requireExtra } from '../../kernel/index.js';
import type { ChefImpl } from '../../kernel/plugin.js';
import manifest, { type TableChefConfig } from './index.js';
import { markdownStructure } from '../markdown/structure.js';

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
      requireExtra(manifest.extras[0]!, "The chef 'table' reading a CSV or TSV file");
      const source = decodeUtf8(doc.bytes);
      const tsv = /\.tsv$/i.test(doc.filename ?? '') || /tab-separated/i.test(doc.mime ?? '');
      const { parse } = await import('csv-parse/sync');
      let rows: string[][];
      try {
        rows = parse(source, { delimiter: tsv ? '\t' : ',', relax_column_count: true, bom: true, skip_empty_lines: true, quote: tsv ? false : '"' }) as string[][];
      } catch (e) {
        throw new ChunkdError('VALIDATION', `The file could not be read as ${tsv ? 'TSV' : 'CSV'} (${(e as Error).message}): check its quoting, save it again as UTF-8 ${tsv ? 'TSV' : 'CSV'}, and upload it again.`);
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
  const width = Math.max(...rows.map((r) => r.length));
  const cell = (s: string | undefined) => (s ?? '').replace(/\|/g, '\\|').replace(/\r\n|\n|\r/g, '<br>').trim();
  const line = (r: string[]) => `| ${Array.from({ length: width }, (_, k) => cell(r[k])).join(' | ')} |`;
  return [line(rows[0]!), `|${' --- |'.repeat(width)}`, ...rows.slice(1).map(line)].join('\n');
}
