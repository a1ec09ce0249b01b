/**
 * The held-out choice of a hybrid rule and of an index-text variant (bench/quality/modes-fit.ts), on
 * hand-made figures: chosen on the training corpora alone, admissible rules first.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fit, heldOutRules, heldOutVariants, TOLERANCE, type Cell } from '../bench/quality/modes-fit.js';

// three rules: 0 = text alone, 1 = gains a lot on a and b but loses 3 on c, 2 = gains a little everywhere
const cell = (corpus: string, better: number, recall: number[]): Cell => ({ corpus, pipeline: 'p', better, recall });
const cells = [cell('a', 90, [90, 95, 91]), cell('b', 80, [80, 86, 80.5]), cell('c', 70, [70, 67, 70.2])];

test('a rule more than the tolerance below the better part on a training corpus is not admissible', () => {
  assert.equal(TOLERANCE, 1);
  assert.equal(fit(cells, [0, 1, 2]), 2);
  // without c in training, rule 1 is admissible and has the best mean
  assert.equal(
    fit(
      cells.filter((c) => c.corpus !== 'c'),
      [0, 1, 2],
    ),
    1,
  );
  // none admissible: the least bad worst cell
  assert.equal(fit([cell('a', 90, [85, 88])], [0, 1]), 1);
  // ties go to the earlier rule
  assert.equal(fit([cell('a', 90, [90, 90])], [0, 1]), 0);
});

test('leave one corpus out: each corpus gets the rule chosen on the others', () => {
  assert.deepEqual(
    [...heldOutRules(cells, ['a', 'b', 'c'], [0, 1, 2])],
    [
      ['a', 2],
      ['b', 2],
      ['c', 1],
    ],
  );
});

test('an index-text variant is kept only where the training corpora gain; a tie keeps the first', () => {
  const recall = new Map([
    [
      'span',
      new Map([
        ['a', [90]],
        ['b', [80]],
        ['c', [70]],
      ]),
    ],
    [
      'name',
      new Map([
        ['a', [90]],
        ['b', [80]],
        ['c', [75]],
      ]),
    ],
  ]);
  assert.deepEqual(
    [...heldOutVariants(recall, ['a', 'b', 'c'])],
    [
      ['a', 'name'],
      ['b', 'name'],
      ['c', 'span'],
    ],
  );
});
