import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { headingPath } from '../../kernel/chef/annotate.js';
import { covered, processWith } from '../../test/helpers/chefs.js';

describe('markdown chef: structure as spans of the unchanged text', () => {
  const cases: [string, string, Partial<Record<'headings' | 'tables' | 'code' | 'images', string[]>>][] = [
    ['ATX headings, closing #s dropped from the text', '# One #\n\ntext\n\n### Three', { headings: ['# One #', '### Three'] }],
    ['setext headings span both lines', 'Title\r\n=====\r\n\r\nSub\r\n---\r\n', { headings: ['Title\r\n=====', 'Sub\r\n---'] }],
    [
      'a pipe table: header, delimiter, rows while they hold |',
      'x\n\n| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |\nafter\n',
      { tables: ['| a | b |\n|:--|--:|\n| 1 | 2 |\n| 3 | 4 |'] },
    ],
    ['a table without outer pipes', 'a | b\n--- | ---\n1 | 2\n', { tables: ['a | b\n--- | ---\n1 | 2'] }],
    ['a fenced block: fences included; # inside is not a heading', '```py\n# comment\nx = 1\n```\n', { code: ['```py\n# comment\nx = 1\n```'], headings: [] }],
    ['a ~~~ fence closes only with ~~~ at least as long', '~~~~\n```\n~~~\n~~~~\n', { code: ['~~~~\n```\n~~~\n~~~~'] }],
    ['an unclosed fence runs to the end', '```\ncode\n', { code: ['```\ncode\n'] }],
    ['images with alt, src and a title; not inside code', '![a 🦛](p.png "t") and\n```\n![no](x.png)\n```', { images: ['![a 🦛](p.png "t")'] }],
    ['CJK, emoji and CRLF: offsets are exact', '# 日本語 👨‍👩‍👧‍👦\r\n\r\n## 再び 🇯🇵\r\n', { headings: ['# 日本語 👨‍👩‍👧‍👦', '## 再び 🇯🇵'] }],
    [
      'unclosed image openers by the hundred thousand (each candidate stops at the next bracket)',
      '!['.repeat(100_000) + '![a](b "t'.repeat(10_000),
      { images: [] },
    ],
    ['nothing in plain text', 'Just a sentence. #not a heading', { headings: [], tables: [], code: [], images: [] }],
  ];
  for (const [name, text, want] of cases) {
    test(name, async () => {
      const doc = await processWith('markdown', text);
      assert.equal(doc.text, text);
      for (const [kind, slices] of Object.entries(want)) assert.deepEqual(covered(doc, kind as 'headings'), slices, kind);
    });
  }

  test('heading levels, texts and languages', async () => {
    const doc = await processWith('markdown', '# A\n## B ##\nB2\n---\n```ts\nx\n```\n![alt](s.png)');
    assert.deepEqual(
      doc.structure.headings.map((h) => [h.level, h.text]),
      [
        [1, 'A'],
        [2, 'B'],
        [2, 'B2'],
      ],
    );
    assert.deepEqual(
      doc.structure.code.map((c) => c.language),
      ['ts'],
    );
    assert.deepEqual(
      doc.structure.images.map((i) => [i.alt, i.src]),
      [['alt', 's.png']],
    );
  });

  test('the heading path: a heading closes the deeper ones before it', async () => {
    const doc = await processWith('markdown', '# Install\n## From source\n### Linux\n## From npm\ntext\n# Use\n');
    const at = (s: string) => headingPath(doc.structure.headings, doc.text.indexOf(s));
    assert.deepEqual(at('### Linux'), ['Install', 'From source', 'Linux']);
    assert.deepEqual(at('text'), ['Install', 'From npm']);
    assert.deepEqual(at('# Use'), ['Use']);
  });
});
