import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cosineOf, fillGaps, groupVector, windowSimilarities } from './similarity.js';

const close = (a: number, b: number) => Math.abs(a - b) < 1e-12;

describe('window similarities from unit vectors', () => {
  test('similarity i compares the weighted window i..i+w-1 with unit i+w', () => {
    const vectors = [
      [1, 0],
      [1, 0],
      [0, 1],
      [0, 1],
      [1, 1],
    ];
    const weights = [1, 3, 1, 1, 1];
    const sims = windowSimilarities(vectors, weights, 2);
    assert.equal(sims.length, 3);
    const expected = [0, 1, 2].map((i) => cosineOf(groupVector(vectors, weights, i, i + 2), vectors[i + 2]!));
    sims.forEach((s, i) => assert.ok(close(s, expected[i]!), `${i}: ${s} vs ${expected[i]}`));
    assert.ok(close(sims[0]!, 0)); // window (4,0) vs (0,1)
  });

  test('token weighting: a long unit outweighs a short one in its window', () => {
    const vectors = [
      [1, 0],
      [0, 1],
      [1, 0],
    ];
    const heavyFirst = windowSimilarities(vectors, [9, 1, 1], 2)[0]!;
    const heavySecond = windowSimilarities(vectors, [1, 9, 1], 2)[0]!;
    assert.ok(heavyFirst > heavySecond);
  });

  test('no more units than the window: no similarities', () => {
    assert.equal(windowSimilarities([[1], [1], [1]], [1, 1, 1], 3).length, 0);
  });

  test('a unit with no known word (zero vector) takes its neighbours’ similarity', () => {
    const vectors = [
      [1, 0],
      [1, 0],
      [0.8, 0.6],
      [0, 0],
      [0.6, 0.8],
    ];
    const sims = windowSimilarities(vectors, [1, 1, 1, 1, 1], 1);
    assert.ok(sims.every((s) => Number.isFinite(s)));
    assert.ok(close(sims[2]!, (sims[1]! + sims[3]!) / 2));
  });
});

describe('fillGaps', () => {
  const cases: [number[], number[]][] = [
    [
      [NaN, 0.5, NaN, 0.9, NaN],
      [0.5, 0.5, 0.7, 0.9, 0.9],
    ],
    [
      [NaN, NaN],
      [1, 1],
    ],
    [
      [0.2, 0.4],
      [0.2, 0.4],
    ],
  ];
  for (const [input, expected] of cases) {
    test(JSON.stringify(input.map(String)), () => {
      const out = Array.from(fillGaps(Float64Array.from(input)));
      out.forEach((v, i) => assert.ok(close(v, expected[i]!), `${i}: ${v}`));
    });
  }
});
