/**
 * Hybrid search's fusion (kernel/fusion.ts), on hand-made lists: each rule's arithmetic, the
 * never-worse properties a store's hybrid mode leans on (one list empty: the other, unchanged; a
 * rule with no vector weight: the text list, unchanged; the built-in model's rule keeps BM25's hits
 * whatever noise the vector list holds), and the per-model table.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import { DEFAULT_FUSION, fuse, fusionFor, FUSION_BY_MODEL, type FusionRule, type Hit } from '../kernel/fusion.js';

const hits = (ids: string[], scores = ids.map((_, i) => ids.length - i)): Hit[] => ids.map((id, i) => ({ id, score: scores[i]! }));
const ids = (h: { id: string }[]) => h.map((x) => x.id);

/** One rule of each kind, at an equal weight. */
const RULES: FusionRule[] = [
  { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 },
  { rule: 'rrf', text_weight: 0.5, k: 1, depth: 100 },
  { rule: 'score', text_weight: 0.5, normalise: 'minmax', depth: 100 },
  { rule: 'score', text_weight: 0.5, normalise: 'zscore', depth: 100 },
  { rule: 'rerank', text_weight: 0.5, depth: 100 },
];

/** A seeded generator (mulberry32), so the noise fixtures are the same on every run. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('fuse', () => {
  test('an empty vector list gives the text list, in order, under every rule', () => {
    const text = hits(['a', 'b', 'c', 'd'], [9, 4, 4, 1]);
    for (const rule of RULES) assert.deepEqual(ids(fuse(text, [], rule)), ['a', 'b', 'c', 'd'], JSON.stringify(rule));
  });

  test('an empty text list gives the vector list, in order, under every rule', () => {
    const vector = hits(['x', 'y', 'z'], [0.9, 0.5, 0.5]);
    for (const rule of RULES) assert.deepEqual(ids(fuse([], vector, rule)), ['x', 'y', 'z'], JSON.stringify(rule));
  });

  test('no vector weight gives the text list unchanged, then the vector-only hits in their order', () => {
    const text = hits(['a', 'b', 'c']);
    const vector = hits(['z', 'c', 'y', 'a']);
    for (const rule of RULES) {
      const fused = ids(fuse(text, vector, { ...rule, text_weight: 1 } as FusionRule));
      // rerank keeps to the text candidates first, then fills from the vector list: the same order here
      assert.deepEqual(fused, ['a', 'b', 'c', 'z', 'y'], JSON.stringify(rule));
    }
  });

  test('no text weight gives the vector list first (rank and score rules)', () => {
    const text = hits(['a', 'b', 'c']);
    const vector = hits(['z', 'c', 'y', 'a']);
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rrf', text_weight: 0, k: 60, depth: 100 })), ['z', 'c', 'y', 'a', 'b']);
    assert.deepEqual(ids(fuse(text, vector, { rule: 'score', text_weight: 0, normalise: 'minmax', depth: 100 })).slice(0, 4), ['z', 'c', 'y', 'a']);
  });

  test('weighted reciprocal rank: w / (k + text rank) + (1 − w) / (k + vector rank)', () => {
    // a: text 1, vector 3; b: text 2, vector 1; c: vector 2 only
    const text = hits(['a', 'b']);
    const vector = hits(['b', 'c', 'a']);
    const equal = fuse(text, vector, { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 });
    assert.deepEqual(ids(equal), ['b', 'a', 'c']);
    assert.equal(equal[0]!.score, 0.5 / 62 + 0.5 / 61);
    assert.equal(equal[1]!.score, 0.5 / 61 + 0.5 / 63);
    assert.equal(equal[2]!.score, 0.5 / 62);
    assert.deepEqual([equal[0]!.text_rank, equal[0]!.vector_rank, equal[2]!.text_rank], [2, 1, undefined]);
    // trusting the text list more puts its first hit first
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rrf', text_weight: 0.8, k: 60, depth: 100 })), ['a', 'b', 'c']);
  });

  test('normalised scores: min-max per list, an absent hit taking the lowest', () => {
    // text a 10, b 5, c 0 → 1, 0.5, 0; vector c 0.9, a 0.5, d 0.1 → 1, 0.5, 0
    const text = hits(['a', 'b', 'c'], [10, 5, 0]);
    const vector = hits(['c', 'a', 'd'], [0.9, 0.5, 0.1]);
    const fused = fuse(text, vector, { rule: 'score', text_weight: 0.5, normalise: 'minmax', depth: 100 });
    assert.deepEqual(ids(fused), ['a', 'c', 'b', 'd']);
    assert.deepEqual(
      fused.map((h) => h.score),
      [0.75, 0.5, 0.25, 0],
    );
  });

  test("z-score normalisation is unmoved by a list's scale", () => {
    const text = hits(['a', 'b', 'c'], [3, 2, 1]);
    const vector = hits(['c', 'b', 'a'], [0.3, 0.2, 0.1]);
    const scaled = hits(['c', 'b', 'a'], [300, 200, 100]);
    const rule: FusionRule = { rule: 'score', text_weight: 0.6, normalise: 'zscore', depth: 100 };
    assert.deepEqual(ids(fuse(text, vector, rule)), ids(fuse(text, scaled, rule)));
    fuse(text, vector, rule).forEach((h, i) => assert.ok(Math.abs(h.score - fuse(text, scaled, rule)[i]!.score) < 1e-12));
    assert.deepEqual(ids(fuse(text, vector, rule)), ['a', 'b', 'c']);
  });

  test("rerank orders the text list's first hits by the blend, then the vector list's other hits", () => {
    const text = hits(['a', 'b', 'c', 'd'], [4, 3, 2, 1]);
    // the vector list scores every candidate (as a store reads them from their stored vectors), and has hits of its own
    const vector = hits(['x', 'c', 'b', 'a', 'd'], [0.99, 0.9, 0.5, 0.1, 0]);
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rerank', text_weight: 0, depth: 2 }, 2)), ['b', 'a']);
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rerank', text_weight: 0, depth: 3 }, 3)), ['c', 'b', 'a']);
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rerank', text_weight: 1, depth: 3 }, 3)), ['a', 'b', 'c']);
    // the candidates are read to the k asked for when that is more than depth
    assert.deepEqual(ids(fuse(text, vector, { rule: 'rerank', text_weight: 0, depth: 2 }, 4)), ['c', 'b', 'a', 'd']);
    // fewer candidates than k: the vector list's own hits follow
    assert.deepEqual(ids(fuse(text.slice(0, 2), vector, { rule: 'rerank', text_weight: 0, depth: 10 }, 4)), ['b', 'a', 'x', 'c']);
  });

  test('limit, depth, repeated ids and ties', () => {
    const text = hits(['a', 'b', 'a', 'c']);
    const vector = hits(['c', 'b']);
    const rule: FusionRule = { rule: 'rrf', text_weight: 0.5, k: 60, depth: 2 };
    // depth 2: c is read from the vector list only; a repeated id counts once, at its first place
    assert.deepEqual(ids(fuse(text, vector, rule)), ['b', 'a', 'c']);
    assert.deepEqual(ids(fuse(text, vector, rule, 1)), ['b']);
    // equal fused scores keep the text list's order, then the vector list's
    assert.deepEqual(ids(fuse(hits(['a', 'b']), hits(['b', 'a']), { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 })), ['a', 'b']);
    assert.throws(() => fuse(text, vector, { ...rule, text_weight: 1.5 }), RangeError);
  });

  test('numeric ids (chunk indices) fuse like strings', () => {
    const fused = fuse(
      [
        { id: 3, score: 2 },
        { id: 1, score: 1 },
      ],
      [{ id: 1, score: 0.9 }],
      { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 },
    );
    assert.deepEqual(
      fused.map((h) => h.id),
      [1, 3],
    );
  });
});

describe('the fusion of a model', () => {
  test('the built-in model has its measured rule; any other model the default', () => {
    assert.equal(fusionFor(EMBEDDED_MODEL), FUSION_BY_MODEL[EMBEDDED_MODEL]);
    assert.equal(fusionFor(EMBEDDED_MODEL).text_weight, 1);
    assert.equal(fusionFor('text-embedding-3-small'), DEFAULT_FUSION);
    assert.equal(fusionFor('/models/potion-base-8M'), DEFAULT_FUSION);
    assert.equal(fusionFor(null), DEFAULT_FUSION);
    assert.deepEqual(DEFAULT_FUSION, { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 });
  });

  test("with the built-in model's rule, the top k are BM25's whatever noise the vector list holds", () => {
    const rule = fusionFor(EMBEDDED_MODEL);
    const next = random(45);
    for (let round = 0; round < 200; round++) {
      const n = 5 + Math.floor(next() * 60);
      const chunks = Array.from({ length: n }, (_, i) => `c${i}`);
      // BM25: a random subset matches, scored at random (ties possible); vectors: random cosines for every chunk
      const matching = chunks.filter(() => next() < 0.6);
      const text = matching.map((id) => ({ id, score: Math.round(next() * 20) / 4 })).sort((a, b) => b.score - a.score);
      const vector = chunks.map((id) => ({ id, score: next() * 2 - 1 })).sort((a, b) => b.score - a.score);
      for (const k of [1, 5, 10]) {
        const fused = ids(fuse(text, vector, rule, k));
        const expected = ids(text.slice(0, k));
        assert.deepEqual(fused.slice(0, expected.length), expected);
        // where BM25 runs out, the vector list fills the k, in its order
        assert.deepEqual(
          fused.slice(expected.length),
          ids(vector)
            .filter((id) => !expected.includes(id))
            .slice(0, k - expected.length),
        );
      }
    }
  });

  test('with the default rule, a hit both lists rank well beats one only a single list ranks first', () => {
    const text = hits(['t1', 'both', 't3']);
    const vector = hits(['v1', 'both', 'v3']);
    assert.equal(ids(fuse(text, vector, DEFAULT_FUSION))[0], 'both');
  });

  test('equal reciprocal rank puts first a hit both lists put first', () => {
    const next = random(7);
    const pool = Array.from({ length: 30 }, (_, i) => `c${i}`);
    for (let round = 0; round < 200; round++) {
      const shuffle = () =>
        [...pool]
          .map((id) => ({ id, r: next() }))
          .sort((a, b) => a.r - b.r)
          .map((x, i) => ({ id: x.id, score: 30 - i }));
      const text = shuffle();
      const vector = shuffle();
      const top = vector.findIndex((h) => h.id === text[0]!.id);
      vector.unshift(...vector.splice(top, 1));
      assert.equal(fuse(text, vector, DEFAULT_FUSION, 1)[0]!.id, text[0]!.id);
    }
  });
});
