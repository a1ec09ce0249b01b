import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AUTO_MAX_ROUNDS, autoThreshold } from './auto-threshold.js';
import { rangesBetween, splitPoints } from './split-points.js';

/** 60 sentences of 10 tokens whose similarity curve dips every 6 sentences, some dips deeper than others. */
const UNITS = 60;
const SIMS = Array.from({ length: UNITS - 1 }, (_, i) => 0.6 + 0.3 * Math.cos((2 * Math.PI * i) / 6) - 0.2 * Math.sin(i * 0.37));
const COUNTS = Array(UNITS).fill(10);
const OPTS = { window: 5, polyorder: 3, tolerance: 0.2, minUnits: 1, similarityWindow: 1 };
const sizesAt = (threshold: number) => rangesBetween(splitPoints(SIMS, UNITS, { ...OPTS, threshold }), UNITS).map(([a, b]) => (b - a) * 10);

describe("threshold 'auto': bisection for groups of min_chunk_size to chunk_size tokens", () => {
  const cases: [min: number, max: number][] = [
    [2, 400],
    [2, 100],
    [100, 600],
    [150, 600],
  ];
  for (const [min, max] of cases) {
    test(`every group within [${min}, ${max}] tokens`, () => {
      const t = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: min, maxTokens: max, step: 0.01 });
      const sizes = sizesAt(t);
      assert.ok(t > 0 && t < 1);
      assert.ok(
        sizes.every((n) => n >= min && n <= max),
        `${t}: ${sizes}`,
      );
    });
  }

  test('a smaller chunk_size needs more splits: a threshold at least as high', () => {
    const loose = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: 2, maxTokens: 600, step: 0.01 });
    const tight = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: 2, maxTokens: 100, step: 0.01 });
    assert.ok(tight > loose, `${tight} > ${loose}`);
    assert.ok(sizesAt(tight).length > sizesAt(loose).length);
  });

  test('no threshold fits (every sentence is over chunk_size): the search ends at the step, near the most splits', () => {
    const t = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: 2, maxTokens: 5, step: 0.01 });
    assert.ok(t > 0.98 && t < 1, String(t));
  });

  test('a coarser step stops sooner; the rounds are bounded whatever the step', () => {
    const coarse = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: 2, maxTokens: 5, step: 0.3 });
    assert.equal(coarse, 0.75, 'two rounds (0.5, then 0.75) leave an interval of 0.25, under the step');
    const fine = autoThreshold(SIMS, UNITS, COUNTS, OPTS, { minTokens: 2, maxTokens: 5, step: Number.MIN_VALUE });
    assert.ok(fine >= 1 - 2 ** -AUTO_MAX_ROUNDS && fine < 1);
  });
});
