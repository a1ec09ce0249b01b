import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sentenceSplitter, splitSentences, type SplitOptions } from './split.js';

const pieces = (text: string, options: SplitOptions) => splitSentences(text, options).map((s) => text.slice(s.start, s.end));
const DEFAULT = ['\n', '. ', '! ', '? '];

describe('splitSentences', () => {
  const cases: [string, string, SplitOptions, string[]][] = [
    ['prev attaches the delimiter to the sentence before', 'One. Two! Three? Four', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 0 }, ['One. ', 'Two! ', 'Three? ', 'Four']],
    ['next attaches it to the sentence after', 'One. Two! Three? Four', { delim: DEFAULT, includeDelim: 'next', minCharacters: 0 }, ['One', '. Two', '! Three', '? Four']],
    ['a single string delimiter', 'a;b;c', { delim: ';', includeDelim: 'prev', minCharacters: 0 }, ['a;', 'b;', 'c']],
    ['leftmost match wins over a longer later one', 'x...y', { delim: ['..', '...'], includeDelim: 'prev', minCharacters: 0 }, ['x..', '.y']],
    ['at one position the earlier-listed delimiter wins', 'x...y', { delim: ['...', '..'], includeDelim: 'prev', minCharacters: 0 }, ['x...', 'y']],
    ['earlier-listed wins even when shorter', 'a. b', { delim: ['.', '. '], includeDelim: 'prev', minCharacters: 0 }, ['a.', ' b']],
    ['regex metacharacters are literal', 'a(b)c|d', { delim: ['(', ')', '|'], includeDelim: 'prev', minCharacters: 0 }, ['a(', 'b)', 'c|', 'd']],
    ['a delimiter at the start with next gives no empty piece', '. a. b', { delim: '. ', includeDelim: 'next', minCharacters: 0 }, ['. a', '. b']],
    ['consecutive newlines each split (prev)', 'a\n\nb', { delim: '\n', includeDelim: 'prev', minCharacters: 0 }, ['a\n', '\n', 'b']],
    ['no delimiter: one piece', 'no delimiter here', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 0 }, ['no delimiter here']],
    ['a short sentence merges forward', 'Hi. This is long enough. End of it all.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 }, ['Hi. This is long enough. ', 'End of it all.']],
    ['short pieces accumulate until the run is long enough', 'a. b. c. d. e. f. Long sentence here.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 6 }, ['a. b. ', 'c. d. ', 'e. f. ', 'Long sentence here.']],
    ['a short last sentence merges backward', 'This is long enough. Bye.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 }, ['This is long enough. Bye.']],
    ['all short: one piece', 'a. b. c.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 50 }, ['a. b. c.']],
    ['a lone newline opens the next paragraph', 'First paragraph here.\n\nSecond paragraph here.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 }, ['First paragraph here.\n', '\nSecond paragraph here.']],
    ['min is counted in code points, not UTF-16 units', '🦛🦛🦛. 🦛🦛🦛🦛. seventh', { delim: '. ', includeDelim: 'prev', minCharacters: 6 }, ['🦛🦛🦛. 🦛🦛🦛🦛. ', 'seventh']],
    ['CJK full stops as delimiters', '日本語です。次の文です！最後？', { delim: ['。', '！', '？'], includeDelim: 'prev', minCharacters: 0 }, ['日本語です。', '次の文です！', '最後？']],
    ['CRLF as one delimiter', 'one\r\ntwo\r\nthree', { delim: ['\r\n', '\n'], includeDelim: 'prev', minCharacters: 0 }, ['one\r\n', 'two\r\n', 'three']],
  ];
  for (const [name, text, options, expected] of cases) {
    test(name, () => assert.deepEqual(pieces(text, options), expected));
  }

  test('spans tile the text for any input and options', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 80 }),
        fc.constantFrom<'prev' | 'next'>('prev', 'next'),
        fc.integer({ min: 0, max: 20 }),
        fc.subarray(['\n', '. ', '!', '。', '🦛', 'ab'], { minLength: 1 }),
        (text, includeDelim, minCharacters, delim) => {
          const spans = splitSentences(text, { delim, includeDelim, minCharacters });
          let at = 0;
          for (const s of spans) {
            assert.equal(s.start, at);
            assert.ok(s.end > s.start);
            at = s.end;
          }
          assert.equal(at, text.length);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('sentenceSplitter on a range of a text (the path the recursive chunker and overlap take)', () => {
  test('splitting text[start, end) equals splitting that slice alone, shifted by start', () => {
    const options = fc.record({
      delim: fc.constantFrom<string | string[]>(DEFAULT, '. ', ['...', '..', '\n']),
      includeDelim: fc.constantFrom<'prev' | 'next'>('prev', 'next'),
      minCharacters: fc.integer({ min: 0, max: 8 }),
    });
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '.', '!', '?', '\n', '日', '🦛'), maxLength: 60 });
    fc.assert(
      fc.property(text, options, fc.nat(), fc.nat(), (t, opts, a, b) => {
        const [start, end] = [a % (t.length + 1), b % (t.length + 1)].sort((x, y) => x - y) as [number, number];
        const got = sentenceSplitter(opts)(t, start, end);
        const alone = splitSentences(t.slice(start, end), opts).map((s) => ({ start: s.start + start, end: s.end + start }));
        assert.deepEqual(got, alone);
      }),
      { numRuns: 300 },
    );
  });
});

/**
 * The splitter as it was written before the indexOf scan: one regular-expression alternation of
 * the escaped delimiters, matched leftmost-first, then short pieces merged into fresh spans. The
 * new splitter must cut exactly where it did.
 */
function regexSplit(text: string, delim: string[], includeDelim: 'prev' | 'next', min: number): [number, number][] {
  const re = new RegExp(delim.map((d) => d.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const pieces: [number, number][] = [];
  let last = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const cut = includeDelim === 'prev' ? m.index + m[0].length : m.index;
    if (cut > last) pieces.push([last, cut]);
    last = cut;
  }
  if (last < text.length) pieces.push([last, text.length]);
  if (min <= 1) return pieces;
  const out: [number, number][] = [];
  let runStart = -1;
  for (const [s, e] of pieces) {
    const start = runStart >= 0 ? runStart : s;
    if ([...text.slice(start, e)].length < min) runStart = start;
    else {
      out.push([start, e]);
      runStart = -1;
    }
  }
  if (runStart >= 0) out.push([out.length ? out.pop()![0] : runStart, text.length]);
  return out;
}

describe('the indexOf splitter cuts where a regular-expression alternation does', () => {
  test('random texts, random delimiter sets (overlapping, prefixes of each other, surrogates, regex metacharacters) and minimum lengths', () => {
    const unit = fc.constantFrom('a', 'b', '.', ' ', '!', '?', '\n', '\r', '(', '|', '日', '🦛', '\ud83e');
    const delimiter = fc.string({ unit, minLength: 1, maxLength: 3 });
    const options = fc.tuple(fc.array(delimiter, { minLength: 1, maxLength: 6 }), fc.constantFrom<'prev' | 'next'>('prev', 'next'), fc.integer({ min: 0, max: 8 }));
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 120 }), options, (text, [delim, includeDelim, minCharacters]) => {
        const got = sentenceSplitter({ delim, includeDelim, minCharacters })(text).map((s) => [s.start, s.end]);
        assert.deepEqual(got, regexSplit(text, delim, includeDelim, minCharacters));
      }),
      { numRuns: 1000 },
    );
  });
});
