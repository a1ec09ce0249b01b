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

  test('headings h1–h6 are spans of the text, with their level; the text is the same as without them', async () => {
    const doc = await processWith('html', '<h1> Guide  🦛 </h1><p>Intro.</p><h2>Install <em>it</em></h2><p>Run.</p><h3></h3>');
    // As html-to-text lays it out without marks (an empty heading still leaves its line breaks).
    assert.equal(doc.text, 'Guide 🦛\n\nIntro.\n\nInstall it\n\nRun.\n\n');
    assert.deepEqual(
      doc.structure.headings.map((h) => [h.level, h.text, doc.text.slice(h.start, h.end)]),
      [
        [1, 'Guide 🦛', 'Guide 🦛'],
        [2, 'Install it', 'Install it'],
      ],
    );
  });

  test('a private-use mark in the page is not taken for a heading', async () => {
    const doc = await processWith('html', '<p>\uE0001 x \uE001</p>');
    assert.deepEqual(doc.structure.headings, []);
  });

  test('nesting past maxHtmlDepth → 413 naming the limit', async () => {
    await rejectsWith(processWith('html', '<div>'.repeat(2000)), 413, /maxHtmlDepth/);
  });
});
