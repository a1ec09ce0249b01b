import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { sliceIn } from '../../test/helpers/units.js';
import { findTables } from './parse.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const table = registry.get('chunker', 'table');
type Unit = 'codepoint' | 'utf16' | 'utf8';
const chunk = async (text: string, config: Record<string, unknown> = {}, unit: Unit = 'codepoint') =>
  (await chunkWith(table, table.validateConfig({ ...config }), text, unit)) as Chunk[];
const shape = (chunks: Chunk[]) => chunks.map((c) => [c.text, c.context ?? null, (c.metadata as { kind: string }).kind]);
const header = (c: Chunk) => (c.metadata as { header: { start_index: number; end_index: number } }).header;

const MD = '| name | qty |\n|---|---|\n| apple | 3 |\n| pear | 5 |\n| plum | 7 |\n';
const MD_HEAD = '| name | qty |\n|---|---|\n';

describe('markdown tables', () => {
  test('a table that fits is one chunk, the whole table', async () => {
    const chunks = await chunk(MD);
    assert.deepEqual(shape(chunks), [[MD, null, 'table']]);
    assert.deepEqual(chunks[0]!.metadata, {
      kind: 'table',
      format: 'markdown',
      table: 0,
      rows: 3,
      header_token_count: MD_HEAD.length,
      header: { start_index: 0, end_index: MD_HEAD.length },
    });
    assert.equal(chunks[0]!.token_count, MD.length);
  });

  test('a larger table: the first chunk holds the header, later chunks carry it in context', async () => {
    // Header 25 characters, rows 13 or 14: header + 1 row fits 40, header + 2 rows does not.
    const chunks = await chunk(MD, { chunk_size: 40 });
    assert.deepEqual(shape(chunks), [
      [MD_HEAD + '| apple | 3 |\n', null, 'table'],
      ['| pear | 5 |\n', MD_HEAD, 'table'],
      ['| plum | 7 |\n', MD_HEAD, 'table'],
    ]);
    for (const c of chunks) {
      assert.equal(MD.slice(c.start_index, c.end_index), c.text);
      assert.equal(c.token_count, c.text.length);
      assert.ok((c.metadata as { header_token_count: number }).header_token_count + (c.context ? c.token_count : c.token_count - MD_HEAD.length) <= 40);
    }
  });

  test('rows are packed while header + rows fit (a group that exactly fits stays whole)', async () => {
    const chunks = await chunk(MD, { chunk_size: MD_HEAD.length + 27 });
    assert.deepEqual(shape(chunks), [
      [MD_HEAD + '| apple | 3 |\n| pear | 5 |\n', null, 'table'],
      ['| plum | 7 |\n', MD_HEAD, 'table'],
    ]);
  });

  test('a row larger than chunk_size is a chunk of its own, never cut', async () => {
    const big = '| h |\n|---|\n| ' + 'x'.repeat(50) + ' |\n| y |\n';
    const chunks = await chunk(big, { chunk_size: 20 });
    assert.deepEqual(shape(chunks), [
      ['| h |\n|---|\n| ' + 'x'.repeat(50) + ' |\n', null, 'table'],
      ['| y |\n', '| h |\n|---|\n', 'table'],
    ]);
  });

  test("tokenizer 'row': chunk_size counts data rows, token_count is the chunk's rows", async () => {
    const chunks = await chunk(MD, { tokenizer: 'row', chunk_size: 2 });
    assert.deepEqual(shape(chunks), [
      [MD_HEAD + '| apple | 3 |\n| pear | 5 |\n', null, 'table'],
      ['| plum | 7 |\n', MD_HEAD, 'table'],
    ]);
    assert.deepEqual(
      chunks.map((c) => c.token_count),
      [2, 1],
    );
    assert.equal((chunks[0]!.metadata as Record<string, unknown>).header_token_count, undefined);
  });

  test('text around tables passes through as its own chunks; blank pieces are left out', async () => {
    const text = 'Intro.\n\n' + MD + '\n\nOutro line one.\nOutro line two.\n';
    const chunks = await chunk(text, { chunk_size: 20 });
    assert.deepEqual(shape(chunks), [
      ['Intro.\n\n', null, 'text'],
      [MD_HEAD + '| apple | 3 |\n', null, 'table'],
      ['| pear | 5 |\n', MD_HEAD, 'table'],
      ['| plum | 7 |\n', MD_HEAD, 'table'],
      ['\n\nOutro line one.\n', null, 'text'],
      ['Outro line two.\n', null, 'text'],
    ]);
  });

  test('two tables: each indexed, each with its own header', async () => {
    const second = '| a |\n|:-:|\n| 1 |\n| 2 |\n';
    const chunks = await chunk(MD + 'between\n' + second, { chunk_size: 12, tokenizer: 'word' });
    const tables = chunks.filter((c) => (c.metadata as { kind: string }).kind === 'table');
    assert.deepEqual([...new Set(tables.map((c) => (c.metadata as { table: number }).table))], [0, 1]);
    assert.ok(tables.filter((c) => c.context).every((c) => c.context === MD_HEAD || c.context === '| a |\n|:-:|\n'));
  });

  test('CRLF tables, CJK and emoji cells: offsets and the header span exact in every unit', async () => {
    const text = '前文 🦛\r\n| 名前 | 🦛 |\r\n| --- | --- |\r\n| 日本 | 👨‍👩‍👧 |\r\n| 中文 | é |\r\n| 한국 | 🇯🇵 |\r\n後書き';
    for (const unit of ['codepoint', 'utf16', 'utf8'] as const) {
      const chunks = await chunk(text, { chunk_size: 30 }, unit);
      const rows = chunks.filter((c) => c.context);
      assert.ok(rows.length >= 2, unit);
      for (const c of chunks) assert.equal(sliceIn(text, c.start_index, c.end_index, unit), c.text, unit);
      for (const c of rows) {
        const h = header(c);
        assert.equal(sliceIn(text, h.start_index, h.end_index, unit), c.context);
        assert.equal(c.context, '| 名前 | 🦛 |\r\n| --- | --- |\r\n');
      }
    }
  });

  test('not tables: no delimiter row, or no data row', () => {
    assert.deepEqual(findTables('a | b\nc | d\n'), []);
    assert.deepEqual(findTables('| a | b |\n|---|---|\n\ntext'), []);
    assert.equal(findTables('a | b\n--- | ---\n1 | 2\n').length, 1, 'outer pipes are optional');
  });
});

describe('HTML tables', () => {
  const THEAD = '<table>\n<thead><tr><th>n</th><th>q</th></tr></thead>\n<tbody>\n';
  const ROWS = ['<tr><td>apple</td><td>3</td></tr>\n', '<tr><td>pear</td><td>5</td></tr>\n', '<tr><td>plum</td><td>7</td></tr>\n'];
  const HTML = THEAD + ROWS.join('') + '</tbody>\n</table>';

  test('thead: header is everything before the first data row; chunks tile the table', async () => {
    const chunks = await chunk(HTML, { tokenizer: 'row', chunk_size: 1 });
    assert.deepEqual(shape(chunks), [
      [THEAD + ROWS[0], null, 'table'],
      [ROWS[1], THEAD, 'table'],
      [ROWS[2] + '</tbody>\n</table>', THEAD, 'table'],
    ]);
    assert.deepEqual(header(chunks[1]!), { start_index: 0, end_index: THEAD.length });
  });

  test('without thead: leading rows of th cells are the header; without them the <table> tag alone opens each chunk', () => {
    const text = 'x <TABLE class="a"><tr><th>h</th></tr><tr><td>1</td></tr><tr><td>2</td></tr></TABLE> y';
    const [t] = findTables(text);
    const row1 = text.indexOf('<tr><td>1');
    const row2 = text.indexOf('<tr><td>2');
    assert.deepEqual(
      { header: t!.header, rows: t!.rows },
      {
        header: { start: 2, end: row1 },
        rows: [
          { start: row1, end: row2 },
          { start: row2, end: text.indexOf('</TABLE>') },
        ],
      },
    );
    assert.equal(t!.end, text.indexOf(' y'));
    const [u] = findTables('<table><tr><td>1</td></tr><tr><td>2</td></tr></table>');
    assert.deepEqual(u!.header, { start: 0, end: 7 });
    assert.equal(u!.rows.length, 2);
  });

  test('tolerant: unclosed rows and an unclosed table; a nested table stays inside its row', () => {
    const [t] = findTables('<table><tr><th>h<tr><td>1<tr><td>2');
    assert.deepEqual(t!.rows, [
      { start: 16, end: 25 },
      { start: 25, end: 34 },
    ]);
    assert.equal(t!.end, 34);
    const nested = '<table><tr><td><table><tr><td>in</td></tr></table></td></tr><tr><td>2</td></tr></table>';
    const [n] = findTables(nested);
    assert.equal(n!.rows.length, 2);
    assert.equal(n!.end, nested.length);
  });

  test('a pipe table inside an HTML cell is part of the HTML table', () => {
    const text = '<table><tr><td>\n| a |\n|---|\n| 1 |\n</td></tr></table>';
    const tables = findTables(text);
    assert.equal(tables.length, 1);
    assert.equal(tables[0]!.format, 'html');
  });
});

describe('properties (random documents of markdown and HTML tables and prose)', () => {
  const cell = fc.constantFrom('a', 'bb', '日本', '🦛', 'é', '1', 'x y', '👨‍👩‍👧');
  const mdTable = fc
    .record({
      cols: fc.integer({ min: 1, max: 3 }),
      rows: fc.array(fc.array(cell, { minLength: 3, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
      crlf: fc.boolean(),
    })
    .map(({ cols, rows, crlf }) => {
      const nl = crlf ? '\r\n' : '\n';
      const line = (cells: string[]) => '| ' + cells.slice(0, cols).join(' | ') + ' |' + nl;
      return line(['h1', 'h2', 'h3']) + '|' + '---|'.repeat(cols) + nl + rows.map(line).join('');
    });
  const htmlTable = fc
    .record({ thead: fc.boolean(), rows: fc.array(fc.array(cell, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }) })
    .map(({ thead, rows }) => {
      const head = '<tr><th>h</th></tr>';
      const body = rows.map((r) => '<tr>' + r.map((c) => `<td>${c}</td>`).join('') + '</tr>\n').join('');
      return `<table>${thead ? `<thead>${head}</thead><tbody>` : head}\n${body}${thead ? '</tbody>' : ''}</table>\n`;
    });
  const prose = fc.constantFrom('Some text.\n', 'Ünïcödé 🦛 line\n', '\n', '日本語の文です。\n', 'a | b not a table\n');
  const doc = fc.array(fc.oneof(mdTable, htmlTable, prose), { minLength: 1, maxLength: 6 }).map((p) => p.join(''));
  const config = fc.oneof(
    fc.record({ chunk_size: fc.integer({ min: 1, max: 120 }), tokenizer: fc.constant('character') }),
    fc.record({ chunk_size: fc.integer({ min: 1, max: 4 }), tokenizer: fc.constant('row') }),
    fc.record({ chunk_size: fc.integer({ min: 2, max: 30 }), tokenizer: fc.constant('word') }),
  );

  test('exact slices and header spans in every unit, in order, nothing but whitespace skipped, budgets kept (600 cases)', async () => {
    const character = await loadTokenizer('character');
    await fc.assert(
      fc.asyncProperty(doc, config, fc.constantFrom<Unit>('codepoint', 'utf16', 'utf8'), async (text, cfg, unit) => {
        fc.pre(text.trim() !== '');
        const chunks = await chunk(text, cfg, unit);
        const u16 = unit === 'utf16' ? chunks : await chunk(text, cfg, 'utf16');
        let covered = 0;
        for (const [i, c] of u16.entries()) {
          assert.ok(c.start_index >= covered, 'in order, not overlapping');
          assert.equal(text.slice(covered, c.start_index).trim(), '', 'only whitespace between chunks');
          covered = c.end_index;
          const meta = c.metadata as { kind: string; rows?: number; header_token_count?: number };
          const inUnit = chunks[i]!;
          assert.equal(sliceIn(text, inUnit.start_index, inUnit.end_index, unit), inUnit.text);
          if (meta.kind !== 'table') continue;
          const h = header(inUnit);
          const headerText = sliceIn(text, h.start_index, h.end_index, unit);
          if (c.context !== undefined) assert.equal(c.context, headerText);
          else assert.ok(c.text.startsWith(headerText), 'a chunk without context holds its header');
          if (cfg.tokenizer === 'row') assert.ok(meta.rows! <= cfg.chunk_size || meta.rows === 1);
          if (cfg.tokenizer === 'character') {
            assert.equal(c.token_count, character.count(c.text));
            const cost = c.context !== undefined ? meta.header_token_count! + c.token_count : c.token_count;
            assert.ok(cost <= cfg.chunk_size || meta.rows === 1, `${cost} over ${cfg.chunk_size} with ${meta.rows} rows`);
          }
        }
        assert.equal(text.slice(covered).trim(), '', 'nothing after the last chunk skipped');
      }),
      { numRuns: 600 },
    );
  });
});

describe("on a processed document: the chef's table spans", () => {
  const DOC = '# Data\n\n```md\n| not | a table |\n|---|---|\n| in | code |\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n';
  test('a table inside a fenced code block is text; the markdown chef’s table is cut as a table', async () => {
    const { discover } = await import('../../kernel/discovery.js');
    const { processWith: runChef } = await import('../../test/helpers/run.js');
    const registry = await discover();
    const table = registry.get('chunker', 'table');
    const doc = await runChef(registry.get('chef', 'markdown'), {}, { text: DOC });
    const config = table.validateConfig({});
    const withSpans = (await chunkWith(table, config, doc.text, 'utf16', { structures: [doc.structure] })) as {
      text: string;
      metadata: Record<string, unknown>;
    }[];
    const plain = (await chunkWith(table, config, DOC, 'utf16')) as { text: string; metadata: Record<string, unknown> }[];
    assert.equal(plain.filter((c) => c.metadata.kind === 'table').length, 2, 'alone, the chunker takes the code block for a table');
    const tables = withSpans.filter((c) => c.metadata.kind === 'table');
    assert.deepEqual(
      tables.map((c) => c.text),
      ['| a | b |\n|---|---|\n| 1 | 2 |'],
    );
    assert.deepEqual(tables[0]!.metadata.headings, ['Data']);
  });
});
