import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rejectsWith, withEnv } from '../../test/helpers/env.js';
import { covered, processWith } from '../../test/helpers/chefs.js';
import { markdownTable } from './impl.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

describe('table chef', () => {
  const files: [string, string, string, string][] = [
    ['CSV: the first row is the header', 'a.csv', 'col1,col2\n1,2\n3,4\n', '| col1 | col2 |\n| --- | --- |\n| 1 | 2 |\n| 3 | 4 |'],
    ['CSV with quotes, a comma and a newline inside a field, CRLF rows', 'q.csv', 'name,note\r\n"Smith, J","two\nlines"\r\n', '| name | note |\n| --- | --- |\n| Smith, J | two<br>lines |'],
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
