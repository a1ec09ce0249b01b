/** Every relative link and anchor in README.md, docs/ and the plugin READMEs leads somewhere. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { ROOT } from '../kernel/paths.js';
import { anchors, deadLinks, docPages, slug } from './helpers/doc-links.js';

const pages = docPages(ROOT, (dir) => readdirSync(dir));

describe('documentation links', () => {
  test('the pages checked include the front page, docs/ and every plugin README', () => {
    assert.ok(pages.includes('README.md'));
    assert.ok(pages.includes('docs/tutorial.md'));
    assert.ok(pages.includes('plugins/token/README.md'));
  });

  for (const page of pages) {
    test(`${page}: every relative link and anchor resolves`, () => {
      assert.deepEqual(deadLinks(join(ROOT, page), ROOT), []);
    });
  }
});

describe('the link check itself', () => {
  test('slugs follow GitHub: punctuation dropped, code and links reduced to their text, repeats numbered', () => {
    assert.equal(slug('Streamed batches (NDJSON)'), 'streamed-batches-ndjson');
    assert.equal(slug("By slug: Chonkie's cloud pipeline API"), 'by-slug-chonkies-cloud-pipeline-api');
    assert.equal(slug('Chunking for retrieval with `passage`'), 'chunking-for-retrieval-with-passage');
    assert.equal(slug('See [the tutorial](docs/tutorial.md) — now'), 'see-the-tutorial--now');
    assert.equal(slug('max_file_bytes'), 'max_file_bytes');
    assert.deepEqual([...anchors('# A\n\n## A\n\n```\n# not a heading\n```\n<a id="x"></a>')], ['a', 'a-1', 'x']);
  });

  test('finds a dead file, a dead anchor and a dead anchor in the same page, and ignores code and other sites', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkd-links-'));
    try {
      mkdirSync(join(dir, 'docs'));
      writeFileSync(join(dir, 'docs', 'b.md'), '# B page\n\n## Part two\n');
      writeFileSync(
        join(dir, 'a.md'),
        [
          '# A',
          '[ok](docs/b.md) [ok](docs/b.md#part-two) [ok](#a) [ok](docs/) [web](https://example.com/x.md)',
          '[gone](docs/c.md) [bad anchor](docs/b.md#part-three) [bad here](#b)',
          '`[code](nowhere.md)`',
          '```md\n[fenced](nowhere.md)\n```',
        ].join('\n'),
      );
      assert.deepEqual(deadLinks(join(dir, 'a.md'), dir), [
        'docs/c.md: no file docs/c.md',
        'docs/b.md#part-three: no heading #part-three in docs/b.md',
        '#b: no heading #b in a.md',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
