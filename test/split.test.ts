import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { sentenceSplitter, splitSentences, type SplitOptions } from '../kernel/index.js';

/**
 * Chonkie's split_pattern_offsets (the path its chunkers take when a delimiter is longer than one
 * byte or not ASCII; the WASM build does not expose it), worked by hand from the core's source
 * (src/split.rs): the first piece opens a running piece; each next piece joins it when either is
 * shorter than the minimum in UTF-8 bytes, else the running piece is emitted; the last run is
 * emitted as it is. Single-byte delimiters are compared with the core itself in split-chonkie.test.ts.
 */
const DEFAULT = ['\n', '. ', '! ', '? '];
const CHONKIE_PATTERN_CASES: [string, string, SplitOptions, string[]][] = [
  [
    'a short first sentence joins the one after',
    'Hi. This is long enough. End of it all.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 },
    ['Hi. This is long enough. ', 'End of it all.'],
  ],
  [
    'a short piece joins the running piece before it (issue example)',
    'This is a long sentence. Short. Another long sentence.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 },
    ['This is a long sentence. Short. ', 'Another long sentence.'],
  ],
  [
    'short pieces keep joining a run that is already long enough',
    'a. b. c. d. e. f. Long sentence here.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 6 },
    ['a. b. c. d. e. f. ', 'Long sentence here.'],
  ],
  [
    'a short last sentence joins the one before',
    'This is long enough. Bye.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 },
    ['This is long enough. Bye.'],
  ],
  ['all short: one piece', 'a. b. c.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 50 }, ['a. b. c.']],
  [
    'a lone newline joins the paragraph before (issue example)',
    'First sentence here.\n\nSecond sentence here.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12 },
    ['First sentence here.\n\n', 'Second sentence here.'],
  ],
  [
    'next: a short piece joins the one before, delimiter first',
    'A first long sentence. Mid. A last long sentence.',
    { delim: DEFAULT, includeDelim: 'next', minCharacters: 12 },
    ['A first long sentence. Mid', '. A last long sentence.'],
  ],
  [
    'next: a delimiter at the end is a piece of its own',
    'Some long sentence here. ',
    { delim: '. ', includeDelim: 'next', minCharacters: 0 },
    ['Some long sentence here', '. '],
  ],
  ['prev: a delimiter at the start is a piece of its own', '. a. b', { delim: '. ', includeDelim: 'prev', minCharacters: 0 }, ['. ', 'a. ', 'b']],
  [
    'the minimum counts UTF-8 bytes: 日本語. is 11 bytes, not 5 characters',
    'Long enough sentence. 日本語. Another long sentence.',
    { delim: '. ', includeDelim: 'prev', minCharacters: 8 },
    ['Long enough sentence. ', '日本語. ', 'Another long sentence.'],
  ],
  [
    'the minimum counts UTF-8 bytes with a CJK delimiter (日本語。 is 12 bytes)',
    '日本語。短。もう一つの長い文。',
    { delim: ['。'], includeDelim: 'prev', minCharacters: 12 },
    ['日本語。短。', 'もう一つの長い文。'],
  ],
  [
    'an emoji is 4 bytes: 🦛🦛🦛. is 14 bytes, 8 UTF-16 units, 5 characters',
    '🦛🦛🦛. Long enough sentence here.',
    { delim: '. ', includeDelim: 'prev', minCharacters: 13 },
    ['🦛🦛🦛. ', 'Long enough sentence here.'],
  ],
];

/** The opt-in 'forward' rule: short pieces gather forward into runs of at least the minimum. */
const FORWARD_CASES: [string, string, SplitOptions, string[]][] = [
  [
    'forward: short pieces gather until the run is long enough',
    'a. b. c. d. e. f. Long sentence here.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 6, mergeRule: 'forward' },
    ['a. b. ', 'c. d. ', 'e. f. ', 'Long sentence here.'],
  ],
  [
    'forward: a short sentence joins the one after',
    'This is a long sentence. Short. Another long sentence.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12, mergeRule: 'forward' },
    ['This is a long sentence. ', 'Short. Another long sentence.'],
  ],
  [
    'forward: a short last run joins the one before',
    'This is long enough. Bye.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12, mergeRule: 'forward' },
    ['This is long enough. Bye.'],
  ],
  ['forward: all short: one piece', 'a. b. c.', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 50, mergeRule: 'forward' }, ['a. b. c.']],
  [
    'forward: a lone newline opens the next paragraph',
    'First sentence here.\n\nSecond sentence here.',
    { delim: DEFAULT, includeDelim: 'prev', minCharacters: 12, mergeRule: 'forward' },
    ['First sentence here.\n', '\nSecond sentence here.'],
  ],
  [
    'forward: the minimum counts UTF-8 bytes (日本 is 6)',
    '日本 語 long enough word',
    { delim: ' ', includeDelim: 'prev', minCharacters: 8, mergeRule: 'forward' },
    ['日本 語 ', 'long enough word'],
  ],
];

const pieces = (text: string, options: SplitOptions) => splitSentences(text, options).map((s) => text.slice(s.start, s.end));

describe('splitSentences', () => {
  const cases: [string, string, SplitOptions, string[]][] = [
    [
      'prev attaches the delimiter to the sentence before',
      'One. Two! Three? Four',
      { delim: DEFAULT, includeDelim: 'prev', minCharacters: 0 },
      ['One. ', 'Two! ', 'Three? ', 'Four'],
    ],
    [
      'next attaches it to the sentence after',
      'One. Two! Three? Four',
      { delim: DEFAULT, includeDelim: 'next', minCharacters: 0 },
      ['One', '. Two', '! Three', '? Four'],
    ],
    ['a single string delimiter', 'a;b;c', { delim: ';', includeDelim: 'prev', minCharacters: 0 }, ['a;', 'b;', 'c']],
    ['leftmost match wins over a longer later one', 'x...y', { delim: ['..', '...'], includeDelim: 'prev', minCharacters: 0 }, ['x..', '.y']],
    ['at one position the earlier-listed delimiter wins', 'x...y', { delim: ['...', '..'], includeDelim: 'prev', minCharacters: 0 }, ['x...', 'y']],
    ['earlier-listed wins even when shorter', 'a. b', { delim: ['.', '. '], includeDelim: 'prev', minCharacters: 0 }, ['a.', ' b']],
    ['regex metacharacters are literal', 'a(b)c|d', { delim: ['(', ')', '|'], includeDelim: 'prev', minCharacters: 0 }, ['a(', 'b)', 'c|', 'd']],
    ['a delimiter at the start with next gives no empty piece', '. a. b', { delim: '. ', includeDelim: 'next', minCharacters: 0 }, ['. a', '. b']],
    ['consecutive newlines each split (prev)', 'a\n\nb', { delim: '\n', includeDelim: 'prev', minCharacters: 0 }, ['a\n', '\n', 'b']],
    ['no delimiter: one piece', 'no delimiter here', { delim: DEFAULT, includeDelim: 'prev', minCharacters: 0 }, ['no delimiter here']],
    ...CHONKIE_PATTERN_CASES,
    ...FORWARD_CASES,
    [
      'CJK full stops as delimiters',
      '日本語です。次の文です！最後？',
      { delim: ['。', '！', '？'], includeDelim: 'prev', minCharacters: 0 },
      ['日本語です。', '次の文です！', '最後？'],
    ],
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
        fc.constantFrom<'chonkie' | 'forward'>('chonkie', 'forward'),
        (text, includeDelim, minCharacters, delim, mergeRule) => {
          const spans = splitSentences(text, { delim, includeDelim, minCharacters, mergeRule });
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
      mergeRule: fc.constantFrom<'chonkie' | 'forward'>('chonkie', 'forward'),
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
 * An independent model of Chonkie's multi-pattern split: one regular-expression alternation of the
 * escaped delimiters, matched leftmost-first and non-overlapping (the LeftmostFirst Aho-Corasick
 * match of the core), then the core's merge rule on fresh spans with UTF-8 lengths from TextEncoder.
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
  if (min <= 1 || pieces.length === 0) return pieces;
  const bytes = (s: number, e: number) => new TextEncoder().encode(text.slice(s, e)).length;
  const out: [number, number][] = [];
  let run = pieces[0]!;
  for (const [s, e] of pieces.slice(1)) {
    if (bytes(...run) < min || bytes(s, e) < min) run = [run[0], e];
    else {
      out.push(run);
      run = [s, e];
    }
  }
  out.push(run);
  return out;
}

describe("the splitter equals a model of Chonkie's multi-pattern split (split_pattern_offsets)", () => {
  test('random texts, random delimiter sets (overlapping, prefixes of each other, surrogates, regex metacharacters) and minimum lengths', () => {
    const unit = fc.constantFrom('a', 'b', '.', ' ', '!', '?', '\n', '\r', '(', '|', '日', '🦛', '\ud83e');
    // A delimiter with a lone surrogate can cut a surrogate pair of the text in two, which has no
    // UTF-8 counterpart (Chonkie could not be sent it); the text may still hold lone surrogates.
    const delimiter = fc.string({ unit: fc.constantFrom('a', 'b', '.', ' ', '!', '?', '\n', '\r', '(', '|', '日', '🦛'), minLength: 1, maxLength: 3 });
    const options = fc.tuple(
      fc.array(delimiter, { minLength: 1, maxLength: 6 }),
      fc.constantFrom<'prev' | 'next'>('prev', 'next'),
      fc.integer({ min: 0, max: 8 }),
    );
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 120 }), options, (text, [delim, includeDelim, minCharacters]) => {
        const got = sentenceSplitter({ delim, includeDelim, minCharacters })(text).map((s) => [s.start, s.end]);
        assert.deepEqual(got, regexSplit(text, delim, includeDelim, minCharacters));
      }),
      { numRuns: 3000 },
    );
  });
});
