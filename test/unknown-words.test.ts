/**
 * Texts the built-in model knows no word of (codes, names, words it never saw) are stored with their
 * words' hashed direction, never the zero vector a store refuses: written through a pipeline, they
 * are found in the vector mode by a query of those words.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';

let app: TestApp;
before(async () => (app = await startApp()));
after(() => app.close());

test('a chunk of unknown words is written, and a query of those words finds it first in the vector mode', async () => {
  const created = await app.post('/v1/pipelines', {
    name: 'unknown-words',
    steps: [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 64 } },
      { type: 'write', store: 'default', config: { collection: 'codes' } },
    ],
  });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // One chunk a text; the second has no word (nor punctuation) the model knows.
  const text = ['Rivers flow to the sea', 'Qzxv blorptang', 'Farmers move their herds'];
  const run = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text, document: ['rivers', 'codes', 'farmers'] });
  assert.equal(run.status, 200, JSON.stringify(run.body));
  const search = await app.post('/v1/stores/default/search', { collection: 'codes', query: 'blorptang qzxv', mode: 'vector', k: 3 });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  assert.equal(search.body[0].text, 'Qzxv blorptang');
  assert.ok(search.body[0].score > 0.99, `the same words, the same direction (score ${search.body[0].score})`);
});
