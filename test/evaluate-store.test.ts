/**
 * Evaluation through a store (issue 31, section 6): `"retriever": "store:NAME"` writes each
 * candidate's chunks to a fresh collection of the store (the embedded LanceDB default), ranks the
 * questions through its index, and reports the exact-cosine rows beside it; nothing is left behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';

const DOCS = [
  { id: 'rivers', text: 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded.' },
  { id: 'bees', text: 'Bees visit the orchard in April. The honey harvest comes in late summer, after the lavender.' },
];
const questions = [
  { question: 'When is the honey harvest?', references: [{ document: 'bees', start_index: 33, end_index: 90 }] },
  { question: 'Where did the farmers take their herds?', references: [{ document: 'rivers', start_index: 30, end_index: 63 }] },
];
const candidates = [[{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 12 } }]];

let app: TestApp;
before(async () => {
  app = await startApp();
});
after(() => app.close());

const stored = async () => ((await app.request('GET', '/v1/stores')).body as { name: string; collections: { name: string; count: number }[] }[]).find((s) => s.name === 'default')!.collections;

describe('POST /v1/evaluate with a store retriever', () => {
  test('rows for the store and for exact cosine, per k; the same ranking here, as an exact index gives', async () => {
    const res = await app.post('/v1/evaluate', { documents: DOCS, questions, candidates, retriever: 'store:default', k: [1, 3], detail: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.results as { retriever: string; k: number; recall: { mean: number }; iou: { mean: number }; chunks: number; questions: { retrieved: unknown[] }[] }[];
    assert.deepEqual(rows.map((r) => [r.retriever, r.k]), [['store:default', 1], ['store:default', 3], ['embeddings', 1], ['embeddings', 3]]);
    const [store1, store3, exact1, exact3] = rows;
    for (const r of rows) assert.equal(r.chunks, rows[0]!.chunks);
    assert.equal(store3!.questions[0]!.retrieved.length, 3);
    // 10^1 chunks: LanceDB searches them all (no index yet), so its ranking is the exact one.
    assert.deepEqual(store1!.questions, exact1!.questions);
    assert.deepEqual(store3!.recall, exact3!.recall);
    assert.ok(store3!.recall.mean > 0);
  });

  test('what the evaluation wrote is removed; an unknown store is a 404 naming the connections', async () => {
    for (const c of await stored()) if (c.name.startsWith('eval-')) assert.equal(c.count, 0, c.name);
    const res = await app.post('/v1/evaluate', { documents: DOCS, questions, candidates, retriever: 'store:defualt' });
    assert.equal(res.status, 404, JSON.stringify(res.body));
    assert.match(res.body.detail, /Did you mean 'default'\?/);
  });
});
