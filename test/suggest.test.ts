/** "Did you mean": the closest known name, with the edit distance cut short once it cannot win. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { closest, didYouMean } from '../kernel/suggest.js';

/** The whole Levenshtein table, no bound: what the bounded search must agree with. */
function levenshtein(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
  return d[a.length]![b.length]!;
}

/** The rule closest states, computed the long way: the first name at the least distance, within the input's allowance. */
function reference(input: string, known: string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 3)) + 1;
  const a = input.toLowerCase();
  for (const name of known) {
    const b = name.toLowerCase();
    const d = Math.min(a.length, b.length) >= 3 && (b.startsWith(a) || a.startsWith(b)) ? 1 : levenshtein(a, b);
    if (d < bestDistance) [best, bestDistance] = [name, d];
  }
  return best;
}

test('closest picks what the full edit distance picks (random names over a small alphabet)', () => {
  const word = fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'A', '/', '_'), maxLength: 14 });
  fc.assert(
    fc.property(word, fc.array(word, { maxLength: 12 }), (input, known) => {
      assert.equal(closest(input, known), reference(input, known));
    }),
    { numRuns: 3000 },
  );
});

test('typos, truncations and case are found; far names are not', () => {
  const routes = ['/v1/chunk/token', '/v1/chunk/sentence', '/v1/refine/embeddings', '/health'];
  assert.equal(closest('/v1/chunk/tokn', routes), '/v1/chunk/token');
  assert.equal(closest('/V1/CHUNK/SENTENCE', routes), '/v1/chunk/sentence');
  assert.equal(closest('/v1/refine/embed', routes), '/v1/refine/embeddings');
  assert.equal(closest('/metrics', routes), undefined);
  assert.equal(didYouMean('/helth', routes), " Did you mean '/health'?");
  assert.equal(didYouMean('/nothing/like/any/route', routes), '');
});

test('a path far longer than every name matches none (the lengths alone rule the names out)', () => {
  const long = `/v1/chunk/tokex${'x'.repeat(200_000)}`;
  assert.equal(closest(long, ['/v1/chunk/token', '/health']), undefined);
  // A name the path starts with is a truncation, however long the rest.
  assert.equal(closest(`/v1/chunk/token${'x'.repeat(200_000)}`, ['/v1/chunk/token', '/health']), '/v1/chunk/token');
  assert.equal(closest(`/v1/chunk/tokex${'x'.repeat(20)}`, ['/v1/chunk/token']), undefined);
});
