import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { rejectsWith } from '../../test/helpers/env.js';
import { processWith } from '../../test/helpers/chefs.js';

describe('html chef', () => {
  test('a text or a file: blocks on lines, scripts dropped', async () => {
    const html = '<h1>Title</h1><script>x()</script><p>Para <b>bold</b>.</p>';
    assert.equal((await processWith('html', html)).text, 'Title\n\nPara bold.');
    assert.equal((await processWith('html', new TextEncoder().encode(html), {}, 'a.html')).text, 'Title\n\nPara bold.');
  });

  test('nesting past maxHtmlDepth → 413 naming the limit', async () => {
    await rejectsWith(processWith('html', '<div>'.repeat(2000)), 413, /maxHtmlDepth/);
  });
});
