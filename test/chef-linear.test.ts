/**
 * Every chef reads any input in linear time: on the shapes that once made a pattern backtrack
 * (one long line that almost matches), a 1 MB input costs about ten times a 100 KB one, not a
 * hundred. Judged by that ratio with a wide margin (linear: ~10, quadratic: ~100), never by a
 * tight timer. The shapes are single lines on purpose: a shape of many short lines allocates an
 * object per line, and past ~200 KB the young generation's collections make even a linear scan
 * look superlinear by this measure. The markdown scanners that replaced the patterns are also
 * checked against the patterns themselves, on many short lines where backtracking costs nothing.
 */
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { atxHeading, closesFence, isDelimiterRow, openingFence } from '../kernel/chef/markdown-line-scan.js';
import { processWith } from './helpers/chefs.js';

/** The ratio that separates linear (about 10 for 10× the input) from quadratic (about 100). */
const MAX_RATIO = 30;
/** A 100 KB input of these shapes takes milliseconds; this only stops a quadratic one before the 1 MB run would hang. */
const SMALL_INPUT_MS = 3_000;

async function fastest(run: () => Promise<unknown>, times = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < times; i++) {
    const t = performance.now();
    await run();
    best = Math.min(best, performance.now() - t);
  }
  return best;
}

/** Times `make(n)` processed by `chef` at n and 10n; the larger must not cost more than MAX_RATIO times the smaller. */
async function assertLinear(chef: string, make: (n: number) => string | Uint8Array, n: number, filename = ''): Promise<void> {
  const small = make(n);
  const large = make(10 * n);
  // The first run also loads the chef's module and its library.
  const first = await fastest(() => processWith(chef, small, {}, filename), 1);
  assert.ok(first < SMALL_INPUT_MS, `${chef}: ${small.length.toLocaleString('en')} units took ${first.toFixed(0)} ms`);
  const a = await fastest(() => processWith(chef, small, {}, filename));
  const b = await fastest(() => processWith(chef, large, {}, filename));
  // A floor of 5 ms for the small run: below it the clock's resolution, a GC pause or a busy
  // machine's scheduling dominate (a quadratic scan of 100 KB takes seconds, not milliseconds).
  assert.ok(b < MAX_RATIO * Math.max(a, 5), `${chef}: 10× the input took ${(b / a).toFixed(1)}× the time (${a.toFixed(1)} → ${b.toFixed(1)} ms)`);
}

const KB100 = 100_000;

describe('each chef scales linearly on worst-case shapes (100 KB against 1 MB)', () => {
  const markdownShapes: [string, (n: number) => string][] = [
    ['a fence line with a backtick at its end', (n) => '```' + 'a'.repeat(n) + '`'],
    ['an ATX heading whose spaces end in a word', (n) => '# a' + ' '.repeat(n) + 'b'],
    ['a delimiter row whose spaces end in a word', (n) => 'a|b\n-' + ' '.repeat(n) + 'x'],
    ['a delimiter row of cells and spaces ending in a word', (n) => 'a|b\n' + '- |'.repeat(n / 3) + 'x'],
    ['an ATX heading of words and hashes', (n) => '# ' + 'a #'.repeat(n / 3) + 'b'],
    ['a tilde fence of tildes and spaces ending in a backtick', (n) => '~~~' + '~ '.repeat(n / 2) + '`'],
    ['a setext underline ending in a word', (n) => 'a\n' + '='.repeat(n) + 'x'],
    ['an image source never closed', (n) => '![a](' + 'b'.repeat(n)],
  ];
  for (const [name, make] of markdownShapes) {
    test(`markdown: ${name}`, () => assertLinear('markdown', make, KB100));
  }
  test('table (a text): a delimiter row whose spaces end in a word', () => assertLinear('table', (n) => 'a|b\n-' + ' '.repeat(n) + 'x', KB100));
  test('table (a CSV): one quoted cell of escaped quotes, commas and pipes', () =>
    assertLinear('table', (n) => new TextEncoder().encode('a,"' + '"",|'.repeat(n / 4) + '"'), KB100, 't.csv'));
  test('text: one long line', () => assertLinear('text', (n) => 'a'.repeat(n), KB100));
  test('html: a heading of one long word', () => assertLinear('html', (n) => new TextEncoder().encode(`<h1>${'a'.repeat(n)}</h1>`), KB100, 'p.html'));
  test('html: a heading of one run of spaces', () => assertLinear('html', (n) => new TextEncoder().encode(`<h1>a${' '.repeat(n)}b</h1>`), KB100, 'p.html'));
});

/** The patterns the scanners replaced: exact on short lines, where their backtracking costs nothing. */
const FENCE = /^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/;
const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const DELIMITER_ROW = /^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;

describe('the markdown line scanners answer as the patterns they replaced', () => {
  const line = fc.string({ unit: fc.constantFrom(' ', '\t', '#', '`', '~', '|', '-', ':', '=', 'a', 'b', '\u2028', '\u00a0'), maxLength: 16 });
  const runs = { numRuns: 20_000 };

  test('opening fence: whether, which mark and how long, and the language', () => {
    fc.assert(
      fc.property(line, (s) => {
        const m = FENCE.exec(s);
        const got = openingFence(s);
        assert.deepEqual(got && [got.mark, got.length, got.language], m ? [m[1]![0], m[1]!.length, m[2]] : undefined, JSON.stringify(s));
      }),
      runs,
    );
  });

  test('closing fence, for each mark and length', () => {
    fc.assert(
      fc.property(line, fc.constantFrom<'`' | '~'>('`', '~'), fc.integer({ min: 3, max: 5 }), (s, mark, length) => {
        const close = new RegExp(`^ {0,3}${mark === '`' ? '`' : '~'}{${length},}[ \\t]*$`);
        assert.equal(closesFence(s, { mark, length, language: '' }), close.test(s), JSON.stringify(s));
      }),
      runs,
    );
  });

  test('ATX heading: whether, its level and its text', () => {
    fc.assert(
      fc.property(line, (s) => {
        const m = ATX.exec(s);
        const got = atxHeading(s);
        assert.deepEqual(got && [got.level, got.text], m ? [m[1]!.length, m[2] ?? ''] : undefined, JSON.stringify(s));
      }),
      runs,
    );
  });

  test('table delimiter row', () => {
    fc.assert(
      fc.property(line, (s) => assert.equal(isDelimiterRow(s), DELIMITER_ROW.test(s), JSON.stringify(s))),
      runs,
    );
  });
});
