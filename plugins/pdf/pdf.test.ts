import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { FIXTURES_DIR, PDF_PAGES } from '../../scripts/make-fixtures.js';
import { rejectsWith } from '../../test/helpers/env.js';
import { processWith } from '../../test/helpers/chefs.js';
import { PAGE_SEPARATOR } from './pdf.js';

const sample = () => new Uint8Array(readFileSync(join(FIXTURES_DIR, 'sample.pdf')));

describe('pdf chef', () => {
  test('pages joined by a form feed line', async () => {
    const doc = await processWith('pdf', sample(), {}, 'a.pdf');
    assert.equal(doc.text, PDF_PAGES.map((page) => page.map((lines) => lines.join('\n')).join('\n\n')).join(PAGE_SEPARATOR));
  });

  test('a text is refused: the chef reads files', async () => {
    await rejectsWith(processWith('pdf', 'plain text'), 422, /reads files, not text/);
  });

  test('more pages than maxPages → 413', async () => {
    const { processWith: runChef } = await import('../../test/helpers/run.js');
    const { discover } = await import('../../kernel/discovery.js');
    const chef = (await discover()).get('chef', 'pdf');
    await rejectsWith(runChef(chef, {}, { bytes: sample() }, { limits: { maxPages: 1 } }), 413, /maxPages/);
  });
});
