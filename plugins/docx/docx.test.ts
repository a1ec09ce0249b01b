import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { DOCX_BLOCKS, FIXTURES_DIR } from '../../scripts/make-fixtures.js';
import { rejectsWith } from '../../test/helpers/env.js';
import { processWith } from '../../test/helpers/chefs.js';

describe('docx chef', () => {
  test('paragraphs separated by a blank line', async () => {
    const doc = await processWith('docx', new Uint8Array(readFileSync(join(FIXTURES_DIR, 'sample.docx'))), {}, 'a.docx');
    assert.equal(doc.text, DOCX_BLOCKS.map((b) => b.text).join('\n\n'));
  });

  test('bytes that are not a zip → 422 naming DOCX', async () => {
    await rejectsWith(processWith('docx', new Uint8Array([1, 2, 3])), 422, /could not be read as DOCX/);
  });
});
