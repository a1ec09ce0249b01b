import type { Static } from '#typebox';
import { loadTokenizer, spanCounter, tokenWindows, type ChunkerImpl, type Span, type Tokenizer } from '../../kernel/index.js';
import type { TableConfig } from './index.js';
import { findTables, type Range, type Table } from './parse.js';

export async function create(config: Static<typeof TableConfig>): Promise<ChunkerImpl> {
  const tokenizer = config.tokenizer === 'row' ? undefined : await loadTokenizer(config.tokenizer);
  return { chunk: (text, context) => chunkText(text, config.chunk_size, tokenizer, context?.structure?.tables) };
}

/**
 * The tables to cut: on a processed document, the chef's table spans (so a table-like block
 * inside a fenced code block is text, and a chef's tables are found however it lays them out),
 * each parsed for its header and rows; on a plain text, the tables this chunker finds itself.
 */
export function tablesOf(text: string, spans?: readonly Range[]): Table[] {
  if (!spans) return findTables(text);
  return spans.flatMap((span) =>
    findTables(text.slice(span.start, span.end)).map((t) => {
      const at = (r: Range) => ({ start: r.start + span.start, end: r.end + span.start });
      return { ...t, ...at(t), header: t.header && at(t.header), rows: t.rows.map(at) };
    }),
  );
}

/** How a text is measured: tokens of one tokenizer, or (tokenizer 'row') rows and lines. */
interface Measure {
  /** Cost of a span of whole lines or rows. */
  count(start: number, end: number): number;
  rows: boolean;
  /** Token windows of `size` over one line too long for a chunk. */
  windows(start: number, end: number, size: number): Span[];
}

function chunkText(text: string, size: number, tokenizer: Tokenizer | undefined, chefTables?: readonly Range[]): Span[] {
  const counter = tokenizer ? spanCounter(tokenizer, text) : undefined;
  const measure: Measure = counter
    ? { count: counter.count, rows: false, windows: (s, e, size) => lineWindows(text, tokenizer!, counter.ends, s, e, size) }
    : { count: (s, e) => lineCount(text, s, e), rows: true, windows: () => [] };
  const spans: Span[] = [];
  let at = 0;
  tablesOf(text, chefTables).forEach((table, index) => {
    textSpans(text, at, table.start, size, measure, spans);
    tableSpans(table, index, size, measure, spans);
    at = table.end;
  });
  textSpans(text, at, text.length, size, measure, spans);
  return spans;
}

/**
 * A table's chunks: groups of whole rows whose cost, with the header's, fits `size` (a single row
 * over it is a group of its own). The first chunk starts at the table's start, so its text holds
 * the header; every later chunk's text is its rows alone and its `context` the header. A group
 * ends where the next begins (HTML whitespace and tags between rows go with the rows before them),
 * the last where the table ends, so the chunks tile the table.
 */
function tableSpans(table: Table, index: number, size: number, m: Measure, out: Span[]): void {
  const header: Range = table.header ?? { start: table.start, end: table.start };
  const headerCost = m.rows || header.end === header.start ? 0 : m.count(header.start, header.end);
  const meta = (rows: number): Record<string, unknown> => ({
    kind: 'table',
    format: table.format,
    table: index,
    rows,
    ...(m.rows ? {} : { header_token_count: headerCost }),
  });
  const refs = header.end > header.start ? { header } : undefined;
  // A row is measured as the chunk will hold it: up to the next row (or the table's end), so the
  // whitespace and tags between HTML rows count where they go.
  const rowEnd = (i: number) => (i + 1 < table.rows.length ? table.rows[i + 1]!.start : table.end);
  const costs = table.rows.map((r, i) => (m.rows ? 1 : m.count(r.start, rowEnd(i))));
  const total = m.rows ? costs.length : m.count(table.start, table.end);
  if (total <= size) {
    out.push({ start: table.start, end: table.end, tokenCount: total, metadata: meta(table.rows.length), refs });
    return;
  }
  const firsts: number[] = []; // index of the first row of each group
  let cost = 0;
  costs.forEach((c, i) => {
    if (!firsts.length || cost + c > size) {
      firsts.push(i);
      cost = headerCost + c;
    } else cost += c;
  });
  firsts.forEach((first, g) => {
    const next = firsts[g + 1];
    const start = g === 0 ? table.start : table.rows[first]!.start;
    const end = next === undefined ? table.end : table.rows[next]!.start;
    const rows = (next ?? table.rows.length) - first;
    const span: Span = { start, end, tokenCount: m.rows ? rows : m.count(start, end), metadata: meta(rows), refs };
    if (g > 0 && refs) span.context = header;
    out.push(span);
  });
}

/**
 * Text around tables passes through: whole lines packed while their cost fits `size`, a line over
 * it cut into token windows. Whitespace-only pieces are left out, as every chunker leaves blank input.
 */
function textSpans(text: string, from: number, to: number, size: number, m: Measure, out: Span[]): void {
  if (text.slice(from, to).trim() === '') return;
  const push = (start: number, end: number, tokenCount?: number) => {
    if (text.slice(start, end).trim() !== '') out.push({ start, end, tokenCount: tokenCount ?? m.count(start, end), metadata: { kind: 'text' } });
  };
  let start = from;
  let cost = 0;
  for (let ls = from; ls < to;) {
    const nl = text.indexOf('\n', ls);
    const le = nl < 0 || nl + 1 > to ? to : nl + 1;
    const c = m.rows ? 1 : m.count(ls, le);
    if (c > size) {
      if (ls > start) push(start, ls);
      for (const w of m.windows(ls, le, size)) push(w.start, w.end);
      start = le;
      cost = 0;
    } else if (cost + c > size) {
      push(start, ls);
      start = ls;
      cost = c;
    } else cost += c;
    ls = le;
  }
  if (to > start) push(start, to);
}

/**
 * Token windows over text[start, end): from the whole text's encoding when the counter made it
 * anyway (BPE), else from the line's own (a character or word count needs no whole-text encoding).
 */
function lineWindows(text: string, tokenizer: Tokenizer, allEnds: () => Uint32Array, start: number, end: number, size: number): Span[] {
  if (!tokenizer.spans && !tokenizer.cheapCount) return tokenWindows(allEnds(), size, 0, start, end);
  return tokenWindows(tokenizer.ends(text.slice(start, end)), size, 0).map((w) => ({ ...w, start: w.start + start, end: w.end + start }));
}

/** Lines in text[start, end): the row count of text around tables with tokenizer 'row'. */
function lineCount(text: string, start: number, end: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', start); i >= 0 && i < end; i = text.indexOf('\n', i + 1)) n++;
  return text[end - 1] === '\n' ? n : n + 1;
}
