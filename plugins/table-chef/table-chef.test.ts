import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rejectsWith, withEnv } from '../../test/helpers/env.js';
import { covered, processWith } from '../../test/helpers/chefs.js';
import { discover } from '../../kernel/discovery.js';
import { processWith as runChef } from '../../test/helpers/run.js';
import { fewestTableChars, markdownTable } from './impl.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('table chef', () => {
  const files: [string, string, string, string][] = [
    ['CSV: the first row is the header', 'a.csv', 'col1,col2\n1,2\n3,4\n', '| col1 | col2 |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |'],
    [
      'CSV with quotes, a comma and a newline inside a field, CRLF rows',
      'q.csv',
      'name,note\r\n"Smith, J","two\nlines"\r\n',
      '| name | note |\n| --- | --- |\n| Smith, J | two<br>lines |',
    ],
    ['TSV by extension; a | in a cell is escaped', 't.tsv', 'k\tv\nx|y\t日本\n', '| k | v |\n| --- | --- |\n| x\\|y | 日本 |'],
    ['short rows are padded', 'r.csv', 'a,b,c\n1\n', '| a | b | c |\n| --- | --- | --- |\n| 1 |  |  |'],
  ];
  for (const [name, file, source, text] of files) {
    test(name, async () => {
      const doc = await processWith('table', utf8(source), {}, file);
      assert.equal(doc.text, text);
      assert.deepEqual(covered(doc, 'tables'), [text]);
    });
  }

  test('a text: kept as it is, its markdown tables as spans', async () => {
    const text = 'Intro\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\nAfter | not a table\r\n';
    const doc = await processWith('table', text);
    assert.equal(doc.text, text);
    assert.deepEqual(covered(doc, 'tables'), ['| a | b |\r\n|---|---|\r\n| 1 | 2 |']);
    assert.deepEqual(doc.structure.headings, []);
  });

  test('a CSV that cannot be parsed → 422 naming CSV', async () => {
    await rejectsWith(processWith('table', utf8('a,b\n"open,1\n'), {}, 'bad.csv'), 422, /could not be read as CSV/);
  });

  test('without csv-parse a file is a 501 with the install command; a text still works', async () => {
    await withEnv({ CHUNKD_HIDE_PACKAGES: 'csv-parse' }, async () => {
      await rejectsWith(processWith('table', utf8('a,b\n1,2\n'), {}, 'a.csv'), 501, /npm install csv-parse/);
      assert.equal((await processWith('table', '| a |\n|---|\n| 1 |\n')).structure.tables.length, 1);
    });
  });

  test('markdownTable of no rows is empty', () => {
    assert.equal(markdownTable([]), '');
  });
});

const chef = (await discover()).get('chef', 'table');

describe('table chef: any CSV within the limits', () => {
  const run = (csv: string, maxTextChars?: number) =>
    runChef(chef, {}, { bytes: utf8(csv), filename: 'big.csv' }, maxTextChars ? { limits: { maxTextChars } } : {});
  const rows = 2_000_000;

  test('2,000,000 rows fit a text limit that holds their table (no row list spread into arguments)', async () => {
    // 20 MB of markdown: past the default 16 MiB of text, so the limit is raised to hold it.
    const doc = await run('a,b\n' + '1,2\n'.repeat(rows), 32 * 1024 * 1024);
    assert.deepEqual(doc.metadata, { rows, columns: 2 });
    assert.equal(doc.text.length, '| a | b |\n| --- | --- |'.length + 10 * rows);
    assert.equal(doc.text.slice(-10), '\n| 1 | 2 |');
  });

  test('a 100,000-column header over 200,000 one-cell rows (600 KB) is refused before any row is padded', async () => {
    // Padded first, the rows would make 20 billion cells: the run could not finish; the bound on the table's length refuses it at once.
    const wide = 'h,'.repeat(99_999) + 'h\n' + 'x\n'.repeat(200_000);
    assert.ok(wide.length < 700_000);
    await rejectsWith(run(wide), 413, /limit maxTextChars/);
  });

  test('a table within the limit whose line count over-counts its rows (a quoted field of line breaks) is read in full', async () => {
    // 7 lines of up to 2 fields would be 69 characters padded, past the limit of 60; its 2 rows make 53.
    const doc = await run('a,b\n"x\n\n\n\n\n",y\n', 60);
    assert.equal(doc.text, '| a | b |\n| --- | --- |\n| x<br><br><br><br><br> | y |');
  });

  test('fewestTableChars is the length of a table of empty cells', () => {
    for (const [r, w] of [
      [1, 1],
      [3, 2],
      [5, 7],
    ] as const) {
      assert.equal(markdownTable(Array.from({ length: r }, () => Array(w).fill(''))).length, fewestTableChars(r, w));
    }
  });
});
