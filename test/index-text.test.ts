/**
 * What a retriever indexes of a chunk (kernel/index-text.ts): the chunk's text and offsets never
 * change; the index text is a separate string, the same for a store's full-text index, its vectors
 * and chunkd eval's retrievers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { documentWords, indexText } from '../kernel/index-text.js';

const chunk = { text: 'Prices rose.', metadata: { headings: ['Economy', 'Inflation'] } };

test('by default: the context before the text, nothing else', () => {
  assert.equal(indexText(chunk), 'Prices rose.');
  assert.equal(indexText({ ...chunk, context: '# Economy' }), '# Economy\nPrices rose.');
  assert.equal(indexText({ ...chunk, context: '# Economy' }, 'Prices rose.', { document: 'notes.md' }), '# Economy\nPrices rose.');
});

test('a context a refinery merged into the text is not repeated', () => {
  assert.equal(indexText({ text: 'Before. Prices rose.', context: 'Before. ' }, 'Prices rose.'), 'Before. Prices rose.');
});

test('the document name, as words, and the heading path, each on its own line', () => {
  assert.equal(indexText(chunk, undefined, { document: 'reports/q3_inflation-notes.md', name: true }), 'q3 inflation notes\nPrices rose.');
  assert.equal(indexText(chunk, undefined, { headings: true }), 'Economy > Inflation\nPrices rose.');
  assert.equal(indexText({ ...chunk, context: 'x' }, undefined, { document: 'a.txt', name: true, headings: true }), 'a\nEconomy > Inflation\nx\nPrices rose.');
});

test("a heading the context already holds (the passage chunker's title line) is left out of the path", () => {
  assert.equal(indexText({ ...chunk, context: '= Economy =' }, undefined, { headings: true }), 'Inflation\n= Economy =\nPrices rose.');
  assert.equal(indexText({ ...chunk, metadata: { headings: ['Economy'] }, context: '# Economy' }, undefined, { headings: true }), '# Economy\nPrices rose.');
});

test('no headings, odd metadata, no document: nothing added', () => {
  assert.equal(indexText({ text: 'x' }, undefined, { name: true, headings: true }), 'x');
  assert.equal(indexText({ text: 'x', metadata: { headings: 'Economy' } }, undefined, { headings: true }), 'x');
  assert.equal(indexText({ text: 'x', metadata: { headings: [1, ' ', 'A'] } }, undefined, { headings: true }), 'A\nx');
  assert.equal(indexText({ text: 'x' }, undefined, { document: '.md', name: true }), 'x');
});

test('documentWords reads a file name as words', () => {
  assert.equal(documentWords('state_of_the_union'), 'state of the union');
  assert.equal(documentWords('C:\\docs\\Annual-Report.2024.pdf'), 'Annual Report 2024');
  assert.equal(documentWords('README'), 'README');
});
