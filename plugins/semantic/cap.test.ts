import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { loadTokenizer, tokensIn } from '../../kernel/index.js';
import { capSpan, packRanges, refit } from './cap.js';

describe('capSpan: an oversize sentence is cut at token ends', () => {
  const cases: [string, string, string, number, [number, number], string[]][] = [
    ['fits: unchanged', 'word', 'one two three', 3, [0, 13], ['one two three']],
    ['word tokens, size 2', 'word', 'one two three four five', 2, [0, 23], ['one two ', 'three four ', 'five']],
    ['a span inside the text keeps its own edges', 'word', 'aa bb cc dd ee', 2, [3, 12], ['bb cc ', 'dd ']],
    ['characters, size 3, emoji stay whole', 'character', 'ab🦛cd🦛e', 3, [0, 9], ['ab🦛', 'cd🦛', 'e']],
    ['bytes: a character wider than the cap stays whole', 'byte', 'a🦛b', 2, [0, 4], ['a', '🦛', 'b']],
    ['bytes: never cut inside a character', 'byte', 'ééé', 3, [0, 3], ['é', 'é', 'é']],
    ['cl100k_base: a token straddling two characters keeps them together', 'cl100k_base', ' \u05d2\u05bc', 1, [0, 3], [' \u05d2', '\u05bc']],
    ['CRLF counts as two characters', 'character', 'ab\r\ncd', 3, [0, 6], ['ab\r', '\ncd']],
  ];
  for (const [name, tokenizerName, text, size, [start, end], expected] of cases) {
    test(name, async () => {
      const tokenizer = await loadTokenizer(tokenizerName);
      const pieces = capSpan(tokenizer.ends(text), start, end, size);
      assert.deepEqual(
        pieces.map((p) => text.slice(p.start, p.end)),
        expected,
      );
    });
  }

  test('property: pieces tile the span, each ≤ size tokens unless it cannot be cut shorter', async () => {
    const tokenizers = await Promise.all(['character', 'word', 'byte', 'cl100k_base'].map(loadTokenizer));
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 80 }),
        fc.integer({ min: 1, max: 6 }),
        fc.nat(3),
        fc.nat(),
        fc.nat(),
        (text, size, t, a, b) => {
          const tokenizer = tokenizers[t]!;
          const ends = tokenizer.ends(text);
          const cps = [...text];
          // Sentence edges fall on code-point boundaries.
          const [i, j] = [a % (cps.length + 1), b % (cps.length + 1)].sort((x, y) => x - y);
          const start = cps.slice(0, i).join('').length;
          const end = cps.slice(0, j).join('').length;
          fc.pre(end > start);
          const pieces = capSpan(ends, start, end, size);
          assert.equal(pieces[0]!.start, start);
          assert.equal(pieces.at(-1)!.end, end);
          let total = 0;
          pieces.forEach((p, k) => {
            assert.ok(p.end > p.start, 'empty piece');
            if (k > 0) assert.equal(p.start, pieces[k - 1]!.end);
            const n = tokensIn(ends, p.start, p.end);
            total += n;
            // Over the cap only when it cannot be cut shorter: the tokens past `size` all end at the
            // piece's end (byte tokens of one character, or a token straddling two characters, as in
            // " גּ" with cl100k_base, whose first token ends inside the ג and is snapped past it).
            const before = tokensIn(ends, p.start, p.end - 1);
            assert.ok(n <= size || before < size, `${n} tokens > ${size} in ${JSON.stringify(text.slice(p.start, p.end))}`);
          });
          assert.equal(total, tokensIn(ends, start, end), 'tokens counted once');
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('packRanges: greedy by units under the cap', () => {
  const cases: [string, number[], number, [number, number][]][] = [
    ['all fit', [1, 2, 3], 10, [[0, 3]]],
    [
      'exactly at the cap',
      [2, 3, 5, 5],
      5,
      [
        [0, 2],
        [2, 3],
        [3, 4],
      ],
    ],
    [
      'a unit over the cap is alone',
      [1, 9, 1],
      4,
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
    ],
    [
      'zero-token units ride along',
      [0, 3, 0, 3],
      3,
      [
        [0, 3],
        [3, 4],
      ],
    ],
  ];
  for (const [name, counts, size, expected] of cases) {
    test(name, () => assert.deepEqual(packRanges(counts, 0, counts.length, size), expected));
  }

  test('a sub-range is packed on its own', () =>
    assert.deepEqual(packRanges([5, 1, 1, 1, 5], 1, 4, 2), [
      [1, 3],
      [3, 4],
    ]));
});

describe('refit: exact counts keep the cap when unit counts undercount', () => {
  // A count that charges one extra token per unit boundary inside a range (like a tokenizer that
  // is not additive over cuts): units of 2 tokens, so k units count 2k + (k - 1).
  const count = (from: number, to: number) => 2 * (to - from) + (to - from - 1);
  const cases: [string, [number, number], number, [number, number, number][]][] = [
    ['within the cap: one count, unchanged', [0, 2], 5, [[0, 2, 5]]],
    [
      'over the cap: re-packed by exact counts',
      [0, 4],
      5,
      [
        [0, 2, 5],
        [2, 4, 5],
      ],
    ],
    ['a single unit stays whole', [3, 4], 1, [[3, 4, 2]]],
    [
      'tight cap: one unit per range',
      [0, 3],
      4,
      [
        [0, 1, 2],
        [1, 2, 2],
        [2, 3, 2],
      ],
    ],
  ];
  for (const [name, range, size, expected] of cases) {
    test(name, () => assert.deepEqual(refit(range, count, size), expected));
  }
});
