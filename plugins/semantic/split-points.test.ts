import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { localMinima, percentile, rangesBetween, splitPoints, type SplitOptions } from './split-points.js';

const DEFAULTS: SplitOptions = { window: 5, polyorder: 3, tolerance: 0.2, threshold: 0.5, minUnits: 1, similarityWindow: 3 };

/** High plateaus with dips at the given indices: a similarity curve with known topic changes. */
function dips(length: number, at: Record<number, number>): number[] {
  return Array.from({ length }, (_, i) => {
    let v = 0.9;
    for (const [k, depth] of Object.entries(at)) v -= depth * Math.exp(-((i - Number(k)) ** 2) / 2);
    return v;
  });
}

describe('percentile (linear interpolation, as numpy)', () => {
  const cases: [number[], number, number][] = [
    [[1, 2, 3, 4], 0.5, 2.5],
    [[4, 1, 3, 2], 0, 1],
    [[4, 1, 3, 2], 1, 4],
    [[10], 0.3, 10],
    [[0, 10], 0.25, 2.5],
  ];
  for (const [values, p, expected] of cases) {
    test(`${JSON.stringify(values)} at ${p} → ${expected}`, () => assert.ok(Math.abs(percentile(values, p) - expected) < 1e-12));
  }
});

describe('local minima: flat and convex on the smoothed curve', () => {
  test('each dip of a curve is found near its centre', () => {
    const curve = dips(30, { 8: 0.5, 20: 0.3 });
    const { indices, values } = localMinima(curve, DEFAULTS);
    for (const centre of [8, 20])
      assert.ok(
        indices.some((i) => Math.abs(i - centre) <= 1),
        `no minimum near ${centre}: ${indices}`,
      );
    assert.equal(values.length, indices.length);
  });

  test('no minimum on a straight line, nor on a hill', () => {
    assert.deepEqual(
      localMinima(
        Array.from({ length: 12 }, (_, i) => 0.1 + i * 0.05),
        DEFAULTS,
      ).indices,
      [],
    );
    assert.deepEqual(
      localMinima(
        Array.from({ length: 12 }, (_, i) => 0.9 - 0.01 * (i - 6) ** 2),
        DEFAULTS,
      ).indices,
      [],
    );
  });

  test('a steep slope is not flat enough (tolerance)', () => {
    const curve = Array.from({ length: 12 }, (_, i) => 0.02 * (i - 6) ** 2); // convex, slope up to 0.24 per step
    const tight = localMinima(curve, { ...DEFAULTS, tolerance: 0.05 }).indices;
    const loose = localMinima(curve, { ...DEFAULTS, tolerance: 0.5 }).indices;
    assert.ok(tight.length > 0 && tight.every((i) => Math.abs(i - 6) <= 1), `tight: ${tight}`);
    assert.ok(loose.length > tight.length, `loose: ${loose}`);
  });

  test('fewer samples than the filter window: no minima (one group)', () => {
    assert.deepEqual(localMinima([0.9, 0.1, 0.9, 0.9], DEFAULTS), { indices: [], values: [] });
  });
});

describe('split points', () => {
  test('a split starts the unit a dip compares against (index + similarity_window)', () => {
    const curve = dips(30, { 12: 0.6 });
    const splits = splitPoints(curve, 33, { ...DEFAULTS, threshold: 0.01 });
    assert.ok(splits.length >= 1 && splits.some((s) => Math.abs(s - 15) <= 1), `${splits}`);
  });

  const spacingCases: [string, number][] = [
    ['min 1: every kept minimum', 1],
    ['min 4: splits at least 4 apart and 4 from both ends', 4],
    ['min 10', 10],
  ];
  for (const [name, minUnits] of spacingCases) {
    test(name, () => {
      const curve = dips(40, { 4: 0.5, 7: 0.5, 15: 0.4, 18: 0.6, 30: 0.5 });
      const units = curve.length + DEFAULTS.similarityWindow;
      const splits = splitPoints(curve, units, { ...DEFAULTS, threshold: 0.99, minUnits });
      const edges = [0, ...splits, units];
      for (let k = 1; k < edges.length; k++) assert.ok(edges[k]! - edges[k - 1]! >= minUnits, `${edges}`);
    });
  }

  test('property: the number of splits never falls as the threshold rises', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 0, maxLength: 60 }),
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 4 }),
        fc.uniqueArray(fc.double({ min: 0.01, max: 0.99, noNaN: true }), { minLength: 2, maxLength: 6 }),
        (curve, minUnits, similarityWindow, thresholds) => {
          const units = curve.length + similarityWindow;
          const counts = [...thresholds]
            .sort((a, b) => a - b)
            .map((threshold) => splitPoints(curve, units, { ...DEFAULTS, threshold, minUnits, similarityWindow }).length);
          for (let k = 1; k < counts.length; k++) assert.ok(counts[k]! >= counts[k - 1]!, `counts ${counts} for thresholds ${thresholds}`);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('ranges between split points', () => {
  const cases: [number[], number, [number, number][]][] = [
    [[], 5, [[0, 5]]],
    [
      [2],
      5,
      [
        [0, 2],
        [2, 5],
      ],
    ],
    [
      [1, 3],
      4,
      [
        [0, 1],
        [1, 3],
        [3, 4],
      ],
    ],
  ];
  for (const [splits, units, expected] of cases) {
    test(`${JSON.stringify(splits)} of ${units}`, () => assert.deepEqual(rangesBetween(splits, units), expected));
  }
});
