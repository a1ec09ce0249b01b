import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { histogram, segments, type Chunk } from '../playground/spans.js';

// The playground's pieces of text (playground/spans.ts), checked without a browser: offsets come in
// code points, pieces are UTF-16 slices.

const chunk = (text: string, start: number, end: number, context?: string): Chunk => {
  const cps = [...text];
  return {
    id: `c${start}`,
    text: cps.slice(start, end).join(''),
    start_index: start,
    end_index: end,
    token_count: end - start,
    ...(context !== undefined ? { context } : {}),
  };
};

test('pieces cover the text in order and rebuild every chunk, overlapping or not, with emoji and CJK', () => {
  const alphabet = fc.constantFrom('a', ' ', '\n', '🙂', '日', 'é', '\r\n');
  fc.assert(
    fc.property(fc.array(alphabet, { minLength: 1, maxLength: 40 }), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 8 }), (parts, spans) => {
      const text = parts.join('');
      const n = [...text].length;
      const chunks = spans
        .map(([a, b]) => [a % (n + 1), b % (n + 1)].sort((x, y) => x - y) as [number, number])
        .filter(([a, b]) => b > a)
        .map(([a, b]) => chunk(text, a, b));
      const segs = segments(text, chunks);
      assert.equal(segs.map((s) => text.slice(s.start, s.end)).join(''), text);
      chunks.forEach((c, i) =>
        assert.equal(
          segs
            .filter((s) => s.chunks.includes(i))
            .map((s) => text.slice(s.start, s.end))
            .join(''),
          c.text,
        ),
      );
    }),
  );
});

test('an overlap context is found beside its chunk: after it (suffix) or before it (prefix)', () => {
  const text = 'one two three';
  const suffix = segments(text, [chunk(text, 0, 4, 'two')]);
  assert.deepEqual(
    suffix.map((s) => [text.slice(s.start, s.end), s.chunks, s.context]),
    [
      ['one ', [0], []],
      ['two', [], [0]],
      [' three', [], []],
    ],
  );
  const prefix = segments(text, [chunk(text, 8, 13, 'two ')]);
  assert.deepEqual(
    prefix.map((s) => [text.slice(s.start, s.end), s.chunks, s.context]),
    [
      ['one ', [], []],
      ['two ', [], [0]],
      ['three', [0], []],
    ],
  );
  // A context that is not beside the chunk is not drawn anywhere.
  assert.deepEqual(
    segments(text, [chunk(text, 0, 3, 'three')]).map((s) => s.context),
    [[], []],
  );
});

test('histogram: equal bins up to the top, the largest chunk in the last bin', () => {
  const sized = (n: number) => ({ ...chunk('x', 0, 1), token_count: n });
  assert.deepEqual(histogram([sized(0), sized(9), sized(10), sized(40), sized(99)], 40, 4), [2, 1, 0, 2]);
});
