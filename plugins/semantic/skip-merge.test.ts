import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { skipMerge } from './skip-merge.js';

/** Groups of two units each, and a similarity table between groups (symmetric, 1 on the diagonal). */
const RANGES: [number, number][] = [
  [0, 2],
  [2, 4],
  [4, 6],
  [6, 8],
  [8, 10],
];
const table = (pairs: Record<string, number>) => (a: number, b: number) => pairs[`${a}-${b}`] ?? 0;

describe('skip_window merging keeps merged groups contiguous', () => {
  const cases: [string, number, number, Record<string, number>, [number, number][]][] = [
    ['skip 0 never merges', 0, 0.5, { '0-1': 0.9 }, RANGES],
    [
      'adjacent similar groups merge',
      1,
      0.5,
      { '0-1': 0.9 },
      [
        [0, 4],
        [4, 6],
        [6, 8],
        [8, 10],
      ],
    ],
    [
      'a resumed topic absorbs the aside between',
      1,
      0.5,
      { '0-2': 0.8 },
      [
        [0, 6],
        [6, 8],
        [8, 10],
      ],
    ],
    ['too far for the skip window: no merge', 1, 0.5, { '0-3': 0.9 }, RANGES],
    [
      'a wider skip window reaches it',
      2,
      0.5,
      { '0-3': 0.9 },
      [
        [0, 8],
        [8, 10],
      ],
    ],
    [
      'the most similar candidate wins',
      2,
      0.5,
      { '0-1': 0.6, '0-2': 0.7, '0-3': 0.65 },
      [
        [0, 6],
        [6, 8],
        [8, 10],
      ],
    ],
    [
      'similarity equal to the threshold merges',
      1,
      0.5,
      { '3-4': 0.5 },
      [
        [0, 2],
        [2, 4],
        [4, 6],
        [6, 10],
      ],
    ],
    ['below the threshold stays apart', 1, 0.5, { '3-4': 0.49 }, RANGES],
    ['a higher threshold merges less', 1, 0.95, { '0-1': 0.9 }, RANGES],
  ];
  for (const [name, skip, threshold, pairs, expected] of cases) {
    test(name, () => {
      const merged = skipMerge(RANGES, table(pairs), threshold, skip);
      assert.deepEqual(merged, expected);
      merged.forEach(([a], k) => assert.equal(a, k === 0 ? 0 : merged[k - 1]![1], 'ranges stay contiguous'));
    });
  }

  test('one group is returned as is', () =>
    assert.deepEqual(
      skipMerge([[0, 3]], () => 1, 0.5, 2),
      [[0, 3]],
    ));
});
