import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { processWith } from '../../test/helpers/chefs.js';

describe('markdown chef', () => {
  test('the text is the markdown as it is', async () => {
    const doc = await processWith('markdown', '# T\r\n\r\ntext 🦛');
    assert.equal(doc.text, '# T\r\n\r\ntext 🦛');
  });
});
