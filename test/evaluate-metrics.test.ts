import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bm25Index, tokenize, topK } from '../service/evaluation/bm25.js';
import { parseCsv } from '../service/evaluation/csv.js';
import { retrievable } from '../service/evaluation/candidate.js';
import { locateChunks } from '../service/evaluation/locate.js';
import { precisionOmega, scoreQuestion, summarize } from '../service/evaluation/metrics.js';
import { subtract, union, type Range } from '../service/evaluation/ranges.js';
import { scoreCandidate } from '../service/evaluation/score.js';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import { DEFAULT_FUSION, fusionFor, type FusionRule } from '../kernel/fusion.js';

const r = (start: number, end: number, doc = 'a'): Range => ({ doc, start, end });
const close = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-12, `${actual} ≠ ${expected}`);

test('union merges overlapping and touching ranges of one document only', () => {
  assert.deepEqual(union([r(10, 20), r(0, 5), r(5, 8), r(15, 25), r(0, 3, 'b')]), [r(0, 8), r(10, 25), r(0, 3, 'b')]);
});

test('subtract splits a range the cut lies inside, and an empty cut leaves the length alone', () => {
  assert.deepEqual(subtract([r(0, 30)], r(10, 20)), [r(0, 10), r(20, 30)]);
  assert.deepEqual(subtract([r(0, 30)], r(10, 10)), [r(0, 10), r(10, 30)]);
  assert.deepEqual(subtract([r(0, 30)], r(10, 20, 'b')), [r(0, 30)]);
});

test('overlapping retrieved chunks: the covered part is a union, the retrieved length a sum', () => {
  // reference [10,20); chunks [0,15) and [12,30): covered [10,20) = 10, retrieved 15 + 18 = 33
  const s = scoreQuestion([r(0, 15), r(12, 30)], [r(10, 20)]);
  close(s.recall, 1);
  close(s.precision, 10 / 33);
  close(s.iou, 10 / 33);
});

test('a reference spanning two chunks: retrieving one covers half of it', () => {
  // chunks [0,10) [10,20) [20,30); reference [5,15)
  const s = scoreQuestion([r(0, 10)], [r(5, 15)]);
  close(s.recall, 0.5);
  close(s.precision, 0.5);
  close(s.iou, 5 / (10 + 5)); // retrieved 10 + the 5 reference characters not reached
  const both = scoreQuestion([r(10, 20), r(0, 10)], [r(5, 15)]);
  close(both.recall, 1);
  close(both.iou, 10 / 20);
  // precision Ω takes both chunks that touch it: 10 covered over their 20 characters
  close(precisionOmega([r(0, 10), r(10, 20), r(20, 30)], [r(5, 15)]), 0.5);
});

test('a chunk that only touches a reference counts for precision Ω (an empty intersection)', () => {
  // reference [10,20): [0,10) and [20,30) touch it at its ends, so all three chunks are taken
  close(precisionOmega([r(0, 10), r(10, 20), r(20, 30)], [r(10, 20)]), 10 / 30);
  close(precisionOmega([r(0, 9), r(10, 20), r(21, 30)], [r(10, 20)]), 1);
});

test('chunks of another document count in the retrieved length but never cover', () => {
  const s = scoreQuestion([r(10, 20, 'b'), r(10, 20)], [r(10, 20)]);
  close(s.recall, 1);
  close(s.precision, 0.5);
  close(s.iou, 0.5);
  close(precisionOmega([r(0, 30, 'b')], [r(10, 20)]), 0);
});

test('reference parts no chunk reaches widen the IoU denominator', () => {
  const s = scoreQuestion([r(0, 10), r(30, 40)], [r(0, 10), r(50, 60)]);
  close(s.recall, 0.5);
  close(s.precision, 0.5);
  close(s.iou, 10 / (20 + 10));
  // precision Ω: the unreached reference joins the union, 10 / (10 + 10)
  close(precisionOmega([r(0, 10), r(30, 40)], [r(0, 10), r(50, 60)]), 0.5);
});

test('summarize gives the mean and the population standard deviation', () => {
  assert.deepEqual(summarize([0, 1]), { mean: 0.5, std: 0.5 });
  const s = summarize([2, 4, 4, 4, 5, 5, 7, 9]);
  close(s.mean, 5);
  close(s.std, 2);
  assert.deepEqual(summarize([]), { mean: 0, std: 0 });
});

test('tokenize: lowercase runs of letters and digits; underscores and marks split words', () => {
  assert.deepEqual(tokenize('Hello_world ÉTÉ 3.14 e\u0301x Ⅻ'), ['hello', 'world', 'été', '3', '14', 'e', 'x', 'ⅻ']);
});

test('BM25 scores by Lucene idf and length normalisation, ties in text order', () => {
  const index = new Bm25Index(['a b', 'a c c', 'd']);
  const idf = Math.log(1 + (3 - 1 + 0.5) / (1 + 0.5));
  // text 1: tf 2, length 3, mean length 2
  close(index.scores('C')[1]!, (idf * 2 * 2.2) / (2 + 1.2 * (0.25 + (0.75 * 3) / 2)));
  assert.deepEqual(index.top('c', 5), [1, 0, 2]);
  assert.deepEqual(new Bm25Index(['x', 'y', 'x']).top('x', 2), [0, 2]);
  assert.deepEqual(new Bm25Index(['x', 'y', 'x']).top('zzz', 2), [0, 1]);
  // a word repeated in the query counts twice
  close(index.scores('c c')[1]!, 2 * index.scores('c')[1]!);
});

test('topK keeps the k best, highest first, equal scores in index order', () => {
  assert.deepEqual(topK([1, 3, 2, 3, 0], 3), [1, 3, 2]);
  assert.deepEqual(topK([1, 2], 5), [1, 0]);
});

test('locate text places a chunk at the first copy of its text (without a final period); offsets keeps its own', () => {
  const doc = 'ab. cd. ab. ef';
  const chunks = [
    { text: 'cd. ', start_index: 4, end_index: 8 },
    { text: 'ab.', start_index: 8, end_index: 11 },
  ];
  assert.deepEqual(locateChunks(doc, chunks, 'text', 'codepoint'), {
    ranges: [
      [4, 8],
      [0, 2],
    ],
    moved: 1,
  });
  assert.deepEqual(locateChunks(doc, chunks, 'offsets', 'codepoint').ranges, [
    [4, 8],
    [8, 11],
  ]);
});

test('locate text answers in the offset unit', () => {
  const doc = '😀 x y x';
  const chunks = [{ text: 'x', start_index: 6, end_index: 7 }];
  assert.deepEqual(locateChunks(doc, chunks, 'text', 'codepoint').ranges, [[2, 3]]);
  assert.deepEqual(locateChunks(doc, chunks, 'text', 'utf16').ranges, [[3, 4]]);
  assert.deepEqual(locateChunks(doc, chunks, 'text', 'utf8').ranges, [[5, 6]]);
});

test('parseCsv reads quoted fields with quotes, commas and newlines', () => {
  assert.deepEqual(parseCsv('q,refs\r\n"a, ""b""","x\ny"\nc,d\n'), [
    { q: 'a, "b"', refs: 'x\ny' },
    { q: 'c', refs: 'd' },
  ]);
});

test("hybrid retrieval fuses BM25 and the vectors with the model's rule, as a store's hybrid does", () => {
  // BM25 matches only A (the only one with "x"); cosine ranks B (1), C (0.6), A (0).
  const chunks = [r(0, 10), r(10, 20), r(20, 30)].map((range, i) => ({ range, index: ['x', 'y', 'z'][i]! }));
  const base = {
    ks: [3],
    chunks,
    questions: [{ question: 'x', references: [r(10, 20)] }],
    chunkVectors: [
      [0, 1],
      [1, 0],
      [0.6, 0.8],
    ],
    questionVectors: [[1, 0]],
    detail: true,
  };
  const order = (retriever: 'bm25' | 'embeddings' | 'hybrid', fusion?: FusionRule) =>
    scoreCandidate({ ...base, retriever, ...(fusion ? { fusion } : {}) })[0]!.questions![0]!.retrieved.map((x) => x.start_index);
  assert.deepEqual(order('bm25'), [0, 10, 20]);
  assert.deepEqual(order('embeddings'), [10, 20, 0]);
  // the built-in model's rule: BM25's hits first, then the vector list's
  assert.deepEqual(order('hybrid', fusionFor(EMBEDDED_MODEL)), [0, 10, 20]);
  // equal reciprocal rank (other models): A = 0.5/61 + 0.5/63, B = 0.5/61, C = 0.5/62
  assert.deepEqual(order('hybrid', DEFAULT_FUSION), [0, 10, 20]);
  // the vectors trusted alone: their order
  assert.deepEqual(order('hybrid', { rule: 'rrf', text_weight: 0, k: 60, depth: 100 }), [10, 20, 0]);
  assert.throws(() => order('hybrid'), /fusion rule/);
});

test('a chunk is retrieved by its context and text, unless the context was merged into the text', () => {
  const chunk = { id: 'c', text: 'Prices rose.', start_index: 20, end_index: 32, token_count: 3 };
  assert.equal(retrievable({ ...chunk, context: '# Inflation' }, 'Prices rose.'), '# Inflation\nPrices rose.');
  assert.equal(retrievable(chunk, 'Prices rose.'), 'Prices rose.');
  // merged by a refinery: the text is no longer the span's text, and already holds the context
  assert.equal(retrievable({ ...chunk, text: 'Before. Prices rose.', context: 'Before. ' }, 'Prices rose.'), 'Before. Prices rose.');
});
