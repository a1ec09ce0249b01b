/**
 * The held-out protocol's selection rule (bench/quality/select.ts) and the per-corpus reference
 * rows it reads (bench/quality/folds.ts), on hand-made figures: the rule must choose on the
 * training corpora alone and be scored on the corpus left out.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { readCorpora } from '../bench/quality/folds.js';
import { CEILING_ROWS, dominance, dominates, highRecall, select, type Figures, type Fold } from '../bench/quality/select.js';

const f = (recall: number, iou: number): Figures => ({ bm25: { recall, iou }, embeddings: { recall, iou } });
const map = <T>(o: Record<string, T>) => new Map(Object.entries(o));

// 'small' matches the row 'R small' on a and b, 'big' matches 'R big' on a and b; 'odd' matches both on c only.
const fold: Fold = {
  scores: map({
    a: map({ small: f(80, 8), big: f(95, 2), odd: f(10, 1) }),
    b: map({ small: f(81, 8), big: f(96, 2), odd: f(10, 1) }),
    c: map({ small: f(70, 8), big: f(99, 3), odd: f(99, 9) }),
  }),
  targets: map({
    a: map({ 'R small': f(79, 7), 'R big': f(94, 2) }),
    b: map({ 'R small': f(79, 7), 'R big': f(94, 2) }),
    c: map({ 'R small': f(79, 7), 'R big': f(94, 2) }),
  }),
};

describe('selection rule', () => {
  test('dominates compares as printed: recall to 0.1, IoU to 0.01, ties count', () => {
    assert.equal(dominates({ recall: 90.04, iou: 2.004 }, { recall: 90.0, iou: 2.0 }), true);
    assert.equal(dominates({ recall: 89.94, iou: 9 }, { recall: 90.0, iou: 2.0 }), false);
    assert.equal(dominates({ recall: 95, iou: 1.994 }, { recall: 90.0, iou: 2.0 }), false);
  });

  test('chosen on the training corpora only: c left out never sees odd, which would match both there', () => {
    assert.deepEqual(select(['odd', 'small', 'big'], ['a', 'b'], fold, 8), ['small', 'big']);
    assert.deepEqual(select(['odd', 'small', 'big'], ['c'], fold, 8), ['odd']);
    const held = dominance(['small', 'big'], 'c', fold);
    assert.deepEqual(held.bm25, { matched: 1, total: 2, missed: ['R small'] });
  });

  test('at most max pipelines, each adding a row', () => {
    assert.deepEqual(select(['odd', 'small', 'big'], ['a', 'b'], fold, 1), ['small']);
    assert.deepEqual(select(['odd'], ['a', 'b'], fold, 8), []);
  });
});

describe('high-recall place', () => {
  // 'wide' matches no row (its IoU is low) but reaches the ceiling row's recall on a and b; 'mid'
  // matches the row on a and b; 'huge' reaches it on c only, where it is not trained.
  const [ceilingRow] = CEILING_ROWS;
  const ceil: Fold = {
    scores: map({
      a: map({ mid: f(90, 3), wide: f(97, 1), huge: f(96, 1) }),
      b: map({ mid: f(91, 3), wide: f(98, 1), huge: f(95, 1) }),
      c: map({ mid: f(80, 3), wide: f(90, 1), huge: f(99, 1) }),
    }),
    targets: map(Object.fromEntries(['a', 'b', 'c'].map((c) => [c, map({ [ceilingRow!]: f(96, 2), 'R mid': f(85, 2) })]))),
  };

  test('a member that reaches the ceiling rows on the training corpora is chosen first, though it matches no row', () => {
    assert.equal(highRecall(['mid', 'wide', 'huge'], ['a', 'b'], ceil, 'bm25'), 'wide');
    assert.deepEqual(select(['mid', 'wide', 'huge'], ['a', 'b'], ceil, 8), ['wide', 'mid']);
  });

  test('reaching the rows on more corpora wins over a higher mean recall; training corpora only', () => {
    // On a, b, c: wide reaches on a, b; huge on a, c; mid nowhere. Ties on count go to the higher mean.
    assert.equal(highRecall(['mid', 'wide', 'huge'], ['a', 'c'], ceil, 'bm25'), 'huge');
    assert.equal(highRecall(['mid', 'wide'], ['c'], ceil, 'bm25'), 'wide');
  });

  test('without ceiling rows on the training corpora there is no reserved place', () => {
    assert.equal(highRecall(['small', 'big'], ['a', 'b'], fold, 'bm25'), undefined);
  });
});

describe('per-corpus reference rows', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-folds-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'corpora'));
  writeFileSync(join(dir, 'corpora', 'x.md'), 'alpha beta gamma');
  writeFileSync(join(dir, 'questions.csv'), `question,references,corpus_id\nbeta,"[{""content"": ""beta"", ""start_index"": 6, ""end_index"": 10}]",x\n`);
  writeFileSync(
    join(dir, 'reference-results.md'),
    '# rows\n\n| chunker | x BM25 | x built-in model |\n|---|---|---|\n| Some 200/0 | 78.3 / 5.60 | 44.8 / 3.20 |\n',
  );

  test('a table with <corpus> BM25 and <corpus> built-in model columns gives that corpus its rows', () => {
    const [corpus] = readCorpora([dir]);
    assert.equal(corpus!.id, 'x');
    assert.equal(corpus!.questions.length, 1);
    assert.deepEqual(corpus!.reference?.get('Some 200/0'), { bm25: { recall: 78.3, iou: 5.6 }, embeddings: { recall: 44.8, iou: 3.2 } });
  });
});
