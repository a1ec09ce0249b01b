import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { withFakeLlmEnv } from '../../test/helpers/fake-llm.js';
import { FIXTURES } from '../../test/helpers/fixtures.js';
import { contextTokens } from './impl.js';
import type { Rule } from '../../kernel/split/recipes.js';
import { recursiveCutter } from './recursive-cut.js';
import { tokenCut, type Side } from './token-cut.js';
import { chunkWith, refineWith } from '../../test/helpers/run.js';

const registry = await discover();
const overlap = registry.get('refinery', 'overlap');
const MODES = ['token', 'recursive'] as const;
const METHODS = ['suffix', 'prefix', 'justified'] as const;

const refine = async (chunks: Chunk[], config: Record<string, unknown> = {}) =>
  (await refineWith(overlap, overlap.validateConfig({ ...config }), chunks)) as Chunk[];

const [word, byte] = await Promise.all([loadTokenizer('word'), loadTokenizer('byte')]);

/** Consecutive chunks of the given texts, as a chunker counting with `count` would give them. */
function chunksOf(texts: string[], count = (t: string) => [...t].length): Chunk[] {
  let at = 0;
  return texts.map((text, i) => {
    const n = [...text].length;
    at += n;
    return { id: `c${i}`, text, start_index: at - n, end_index: at, token_count: count(text) };
  });
}

/** [text, token_count, context] per chunk: context is null where the chunk got none. */
type Row = [string, number, string | null];
const rows = (chunks: Chunk[]): Row[] => chunks.map((c) => [c.text, c.token_count, c.context ?? null]);

describe('token mode: method × merge × size (character tokenizer)', () => {
  const abc = ['abcd', 'efgh', 'ij'];
  const cases: [string, string[], Record<string, unknown>, Row[]][] = [
    [
      'suffix appends the start of the next chunk',
      abc,
      { context_size: 2, method: 'suffix' },
      [
        ['abcdef', 6, 'ef'],
        ['efghij', 6, 'ij'],
        ['ij', 2, null],
      ],
    ],
    [
      'suffix without merge only sets context',
      abc,
      { context_size: 2, method: 'suffix', merge: false },
      [
        ['abcd', 4, 'ef'],
        ['efgh', 4, 'ij'],
        ['ij', 2, null],
      ],
    ],
    [
      'prefix prepends the end of the previous chunk',
      abc,
      { context_size: 2, method: 'prefix' },
      [
        ['abcd', 4, null],
        ['cdefgh', 6, 'cd'],
        ['ghij', 4, 'gh'],
      ],
    ],
    [
      'prefix without merge only sets context',
      abc,
      { context_size: 2, method: 'prefix', merge: false },
      [
        ['abcd', 4, null],
        ['efgh', 4, 'cd'],
        ['ij', 2, 'gh'],
      ],
    ],
    [
      'justified adds both sides; the end chunks get one',
      abc,
      { context_size: 2, method: 'justified' },
      [
        ['abcdef', 6, 'ef'],
        ['cdefghij', 8, 'cdij'],
        ['ghij', 4, 'gh'],
      ],
    ],
    [
      'justified without merge: context is both parts in reading order',
      abc,
      { context_size: 1, method: 'justified', merge: false },
      [
        ['abcd', 4, 'e'],
        ['efgh', 4, 'di'],
        ['ij', 2, 'h'],
      ],
    ],
    [
      'a fraction is of the neighbour’s token_count: 0.5 of 4 is 2, of 2 is 1',
      abc,
      { context_size: 0.5, method: 'suffix' },
      [
        ['abcdef', 6, 'ef'],
        ['efghi', 5, 'i'],
        ['ij', 2, null],
      ],
    ],
    [
      'a fraction is floored: 0.75 of 4 is 3',
      abc,
      { context_size: 0.75, method: 'prefix', merge: false },
      [
        ['abcd', 4, null],
        ['efgh', 4, 'bcd'],
        ['ij', 2, 'fgh'],
      ],
    ],
    [
      'a fraction that floors to 0 gives an empty context (the reference gives the whole neighbour)',
      abc,
      { context_size: 0.25, method: 'suffix' },
      [
        ['abcde', 5, 'e'],
        ['efgh', 4, ''],
        ['ij', 2, null],
      ],
    ],
    [
      'the default is 0.25, suffix, merged',
      ['abcdefgh', 'ijklmnop'],
      {},
      [
        ['abcdefghij', 10, 'ij'],
        ['ijklmnop', 8, null],
      ],
    ],
    [
      'a neighbour shorter than the context is taken whole',
      abc,
      { context_size: 3, method: 'suffix' },
      [
        ['abcdefg', 7, 'efg'],
        ['efghij', 6, 'ij'],
        ['ij', 2, null],
      ],
    ],
    [
      'a context larger than every neighbour takes each whole',
      abc,
      { context_size: 100, method: 'justified', merge: false },
      [
        ['abcd', 4, 'efgh'],
        ['efgh', 4, 'abcdij'],
        ['ij', 2, 'efgh'],
      ],
    ],
    [
      'context_size 1 is one token, not a fraction',
      abc,
      { context_size: 1, method: 'prefix' },
      [
        ['abcd', 4, null],
        ['defgh', 5, 'd'],
        ['hij', 3, 'h'],
      ],
    ],
    ['a single chunk has no neighbour and is unchanged', ['abcd'], { context_size: 2, method: 'justified' }, [['abcd', 4, null]]],
    [
      'contexts come from the neighbours as sent, never from merged text',
      ['ab', 'cd', 'ef', 'gh'],
      { context_size: 0.99, method: 'prefix' },
      [
        ['ab', 2, null],
        ['bcd', 3, 'b'],
        ['def', 3, 'd'],
        ['fgh', 3, 'f'],
      ],
    ],
    [
      'CRLF is two characters',
      ['a\r\n', 'b\r\nc'],
      { context_size: 2, method: 'justified', merge: false },
      [
        ['a\r\n', 3, 'b\r'],
        ['b\r\nc', 4, '\r\n'],
      ],
    ],
    [
      'CJK',
      ['日本語の', '文章です'],
      { context_size: 2, method: 'justified' },
      [
        ['日本語の文章', 6, '文章'],
        ['語の文章です', 6, '語の'],
      ],
    ],
    [
      'emoji are one code point each, never split',
      ['🦛🦛', '👋🏽x'],
      { context_size: 1, method: 'justified' },
      [
        ['🦛🦛👋', 3, '👋'],
        ['🦛👋🏽x', 4, '🦛'],
      ],
    ],
  ];
  for (const [name, texts, config, expected] of cases) {
    test(name, async () => assert.deepEqual(rows(await refine(chunksOf(texts), config)), expected));
  }
});

describe('recursive mode: whole pieces of the recipe, nearest first', () => {
  const sentences = ['First sentence. Second sentence. ', 'Third sentence here. Fourth one.'];
  const cases: [string, string[], Record<string, unknown>, Row[]][] = [
    [
      'suffix: the next chunk’s first sentence',
      sentences,
      { context_size: 21, method: 'suffix' },
      [
        ['First sentence. Second sentence. Third sentence here. ', 54, 'Third sentence here. '],
        ['Third sentence here. Fourth one.', 32, null],
      ],
    ],
    [
      'prefix: the previous chunk’s last sentence',
      sentences,
      { context_size: 17, method: 'prefix', merge: false },
      [
        ['First sentence. Second sentence. ', 33, null],
        ['Third sentence here. Fourth one.', 32, 'Second sentence. '],
      ],
    ],
    [
      'a fraction (0.5 of 33 is 16): the last sentence is too big, so its whole last words',
      sentences,
      { context_size: 0.5, method: 'prefix', merge: false },
      [
        ['First sentence. Second sentence. ', 33, null],
        ['Third sentence here. Fourth one.', 32, 'sentence. '],
      ],
    ],
    [
      'justified: words with their spaces when a sentence does not fit',
      sentences,
      { context_size: 20, method: 'justified' },
      [
        ['First sentence. Second sentence. Third sentence ', 48, 'Third sentence '],
        ['Second sentence. Third sentence here. Fourth one.', 49, 'Second sentence. '],
      ],
    ],
    [
      'a whole paragraph when it fits',
      ['Intro line.\n\n', 'Para one. Still one.\n\nPara two.'],
      { context_size: 25, method: 'suffix', merge: false },
      [
        ['Intro line.\n\n', 13, 'Para one. Still one.\n\n'],
        ['Para one. Still one.\n\nPara two.', 31, null],
      ],
    ],
    [
      'CRLF lines',
      ['a\r\nline two\r\n', 'x'],
      { context_size: 10, method: 'prefix', merge: false },
      [
        ['a\r\nline two\r\n', 13, null],
        ['x', 1, 'line two\r\n'],
      ],
    ],
    [
      'lang ja cuts after 。',
      ['前の文です。', '日本語の文章です。これは二番目の文です！'],
      { context_size: 10, method: 'suffix', merge: false, lang: 'ja' },
      [
        ['前の文です。', 6, '日本語の文章です。'],
        ['日本語の文章です。これは二番目の文です！', 20, null],
      ],
    ],
    [
      'lang en has no 。 rule: CJK falls through to tokens',
      ['前の文です。', '日本語の文章です。これは二番目の文です！'],
      { context_size: 10, method: 'suffix', merge: false },
      [
        ['前の文です。', 6, '日本語の文章です。こ'],
        ['日本語の文章です。これは二番目の文です！', 20, null],
      ],
    ],
    [
      'emoji stay whole with their space',
      ['🦛🦛 ünïcode text', 'x'],
      { context_size: 8, method: 'prefix', merge: false },
      [
        ['🦛🦛 ünïcode text', 15, null],
        ['x', 1, 'text'],
      ],
    ],
    [
      'the markdown recipe keeps a heading with its section',
      ['Some intro text.\n## Part one\nBody of part one.\n', 'Next.'],
      { context_size: 31, method: 'prefix', merge: false, recipe: 'markdown' },
      [
        ['Some intro text.\n## Part one\nBody of part one.\n', 47, null],
        ['Next.', 5, '\n## Part one\nBody of part one.\n'],
      ],
    ],
    [
      'the default recipe takes whole lines instead',
      ['Some intro text.\n## Part one\nBody of part one.\n', 'Next.'],
      { context_size: 31, method: 'prefix', merge: false },
      [
        ['Some intro text.\n## Part one\nBody of part one.\n', 47, null],
        ['Next.', 5, '## Part one\nBody of part one.\n'],
      ],
    ],
  ];
  for (const [name, texts, config, expected] of cases) {
    test(name, async () => assert.deepEqual(rows(await refine(chunksOf(texts), { mode: 'recursive', ...config })), expected));
  }

  test('an unknown recipe or lang is a 400 in recursive mode, and ignored in token mode', async () => {
    const chunks = chunksOf(['ab', 'cd']);
    for (const bad of [{ recipe: 'nope' }, { lang: 'xx' }]) {
      await assert.rejects(
        refine(chunks, { mode: 'recursive', ...bad }),
        (e) => isChunkdError(e) && e.status === 400 && /did you mean|valid|known|has/i.test(String(e.detail)),
      );
      assert.equal((await refine(chunks, { mode: 'token', ...bad })).length, 2);
    }
  });
});

describe('token mode with other tokenizers', () => {
  const cases: [string, string[], Record<string, unknown>, Row[]][] = [
    [
      'word tokens keep their spaces',
      ['one two three ', 'four five six'],
      { tokenizer: 'word', context_size: 2, method: 'justified' },
      [
        ['one two three four five ', 5, 'four five '],
        ['two three four five six', 5, 'two three '],
      ],
    ],
    [
      'word: a fraction of the neighbour’s words',
      ['one two three four ', 'five six'],
      { tokenizer: 'word', context_size: 0.5, method: 'justified' },
      [
        ['one two three four five ', 5, 'five '],
        ['three four five six', 4, 'three four '],
      ],
    ],
    [
      'byte: a character wider than the context is taken whole, never split',
      ['ab', 'éé', 'zz'],
      { tokenizer: 'byte', context_size: 1, method: 'justified', merge: false },
      [
        ['ab', 2, 'é'],
        ['éé', 4, 'bz'],
        ['zz', 2, 'é'],
      ],
    ],
    [
      'byte: the context stops before a character that would exceed it',
      ['x', 'aé'],
      { tokenizer: 'byte', context_size: 2, method: 'suffix' },
      [
        ['xa', 2, 'a'],
        ['aé', 3, null],
      ],
    ],
  ];
  for (const [name, texts, config, expected] of cases) {
    const count = config.tokenizer === 'word' ? word.count : byte.count;
    test(name, async () => assert.deepEqual(rows(await refine(chunksOf(texts, count), config)), expected));
  }

  test('cl100k: token_count adds exactly the context’s tokens, and the context stays near the size asked', async () => {
    const cl100k = await loadTokenizer('cl100k_base');
    const texts = ['The quick brown fox jumps over the lazy dog. ', '日本語の文章です。これは二番目の文です！', ' Family: 👨‍👩‍👧‍👦 and flags 🇯🇵🇫🇷.'];
    const chunks = chunksOf(texts, cl100k.count);
    for (const mode of MODES) {
      for (const method of ['suffix', 'prefix'] as const) {
        for (const context_size of [1, 2, 3, 0.5]) {
          const out = await refine(chunks, { tokenizer: 'cl100k_base', context_size, method, mode });
          out.forEach((c, i) => {
            const where = `${mode}/${method}/${context_size}/${i}`;
            if (c.context === undefined) return;
            assert.ok(c.context.isWellFormed(), `${where}: a context split a character`);
            assert.equal(c.token_count - chunks[i]!.token_count, cl100k.count(c.context), where);
            const neighbour = chunks[method === 'suffix' ? i + 1 : i - 1]!;
            const k = context_size < 1 ? Math.floor(context_size * neighbour.token_count) : context_size;
            // The cut is by the neighbour's own tokens; re-encoded alone, a cut piece may differ by a token or two.
            assert.ok(cl100k.count(c.context) <= k + 2, `${where}: ${cl100k.count(c.context)} tokens for a context of ${k}`);
            // Token mode fills the size (recursive mode takes only whole pieces that fit, so it may take less).
            if (mode === 'token') assert.ok(cl100k.count(c.context) >= k - 2, `${where}: ${cl100k.count(c.context)} tokens for a context of ${k}`);
          });
        }
      }
    }
  });
});

describe('tokenCut on shared token ends (pieces of one character)', () => {
  // 'aé' in UTF-8 bytes: a=1 token ending at 1, é=2 tokens both snapped to end at 2.
  const ends = Uint32Array.from([1, 2, 2]);
  const cases: [string, number, Side, [number, number, number]][] = [
    ['head, 1 token', 1, 'head', [0, 1, 1]],
    ['head, 2 tokens would split é: stop before it', 2, 'head', [0, 1, 1]],
    ['head, 3 tokens: all', 3, 'head', [0, 2, 3]],
    ['tail, 1 token is inside é: take é whole', 1, 'tail', [1, 2, 2]],
    ['tail, 2 tokens: é', 2, 'tail', [1, 2, 2]],
    ['tail, 0 tokens: empty', 0, 'tail', [2, 2, 0]],
    ['head, 0 tokens: empty', 0, 'head', [0, 0, 0]],
  ];
  for (const [name, k, side, [start, end, tokens]] of cases) {
    test(name, () => assert.deepEqual(tokenCut(ends, 0, 2, k, side), { start, end, tokens }));
  }
  test('a first character wider than the context is taken whole from the head', () => {
    assert.deepEqual(tokenCut(Uint32Array.from([1, 1, 1, 2]), 0, 2, 2, 'head'), { start: 0, end: 1, tokens: 3 });
  });
});

describe('recursiveCutter: whole pieces, nearest first, descending a level when the nearest is too big', () => {
  const levels: Rule[] = [
    { delimiters: ['\n\n', '\r\n', '\n', '\r'], includeDelim: 'prev' },
    { delimiters: ['. ', '! ', '? '], includeDelim: 'prev' },
    { delimiters: [' '], includeDelim: 'prev' },
    null,
  ];
  const cut = recursiveCutter(levels);
  const text = 'First sentence. Second one.\n\nNew paragraph here.';
  const cases: [string, string, number, Side, string][] = [
    ['head: the first paragraph is too big, so whole sentences of it', text, 20, 'head', 'First sentence. '],
    ['head: two sentences fit', text, 29, 'head', 'First sentence. Second one.\n\n'],
    ['tail: the last paragraph fits whole', text, 20, 'tail', 'New paragraph here.'],
    ['tail: down to whole words, keeping their spaces', text, 16, 'tail', 'paragraph here.'],
    ['tail: one word', text, 6, 'tail', 'here.'],
    ['head: a word larger than the context is cut by tokens', 'Supercalifragilistic word', 3, 'head', 'Sup'],
    ['tail: a word larger than the context is cut by tokens', 'a Supercalifragilistic', 4, 'tail', 'stic'],
    ['a neighbour within the context is taken whole', text, 1000, 'head', text],
    ['0 tokens is an empty context', text, 0, 'tail', ''],
    ['CRLF lines are pieces', 'one\r\ntwo\r\nthree', 7, 'tail', 'three'],
    ['CJK without spaces falls through to tokens', '日本語の文章です', 3, 'head', '日本語'],
    ['emoji words keep their spaces', '🦛🦛 ünïcode text', 8, 'head', '🦛🦛 '],
  ];
  for (const [name, input, k, side, expected] of cases) {
    test(name, () => {
      const ends = Uint32Array.from([...input].map((_, i, cps) => cps.slice(0, i + 1).join('').length)); // the character tokenizer
      const c = cut(input, ends, k, side);
      assert.equal(input.slice(c.start, c.end), expected);
      assert.equal(c.tokens, [...expected].length);
      assert.ok(c.tokens <= Math.max(k, 0));
    });
  }
});

describe('context_size', () => {
  const cases: [number, number, number][] = [
    [0.25, 8, 2],
    [0.99, 32, 31],
    [0.25, 3, 0],
    [0.29, 100, 29], // 0.29 × 100 is 28.999999999999996 in floating point
    [0.5, 0, 0],
    [4, 2, 4],
    [1, 100, 1],
  ];
  for (const [size, neighbour, expected] of cases) {
    test(`${size} of a ${neighbour}-token neighbour is ${expected} tokens`, () => assert.equal(contextTokens(size, neighbour), expected));
  }

  const invalid: [string, unknown][] = [
    ['zero', 0],
    ['a negative fraction', -0.5],
    ['a negative count', -3],
    ['a non-whole number above 1', 1.5],
    ['a string', '0.5'],
  ];
  for (const [name, value] of invalid) {
    test(`${name} is a 422 that says what is accepted`, () => {
      assert.throws(
        () => overlap.validateConfig({ context_size: value }),
        (e) => isChunkdError(e) && e.status === 422 && /context_size must be a number > 0 and < 1 or an integer ≥ 1/.test(JSON.stringify(e.detail)),
      );
    });
  }
});

describe('every mode × method × merge keeps the contract on every fixture', () => {
  const token = registry.get('chunker', 'token');
  for (const mode of MODES) {
    for (const method of METHODS) {
      for (const merge of [true, false]) {
        test(`${mode} ${method} merge=${merge}`, async () => {
          for (const [name, text] of Object.entries(FIXTURES)) {
            const chunks = (await chunkWith(token, token.validateConfig({ chunk_size: 12 }), text, 'codepoint')) as Chunk[];
            const copy = structuredClone(chunks);
            const out = await refine(chunks, { mode, method, merge, context_size: 0.5 });
            assert.deepEqual(chunks, copy, `${name}: input mutated`);
            checkContract(chunks, out, method, merge, name);
          }
        });
      }
    }
  }
});

/** The refinery's promises: ids, offsets and other fields kept; the original span and the context in text as documented. */
function checkContract(input: Chunk[], out: Chunk[], method: string, merge: boolean, label: string): void {
  assert.equal(out.length, input.length, label);
  out.forEach((c, i) => {
    const src = input[i]!;
    const where = `${label} #${i}`;
    assert.deepEqual(
      { ...c, text: 0, token_count: 0, context: 0 },
      { ...src, text: 0, token_count: 0, context: 0 },
      `${where}: a field other than text/token_count/context changed`,
    );
    const hasPrev = method !== 'suffix' && i > 0;
    const hasNext = method !== 'prefix' && i + 1 < input.length;
    if (!hasPrev && !hasNext) return assert.deepEqual(c, src, where);
    const context = c.context!;
    assert.equal(typeof context, 'string', where);
    assert.ok(context.isWellFormed(), `${where}: context splits a character`);
    if (!merge) return assert.equal(c.text, src.text, where);
    // Repeated text may hold the original more than once: some split must satisfy every promise.
    const fits = (at: number) =>
      c.text.slice(0, at) + c.text.slice(at + src.text.length) === context &&
      (hasPrev ? input[i - 1]!.text.endsWith(c.text.slice(0, at)) : at === 0) &&
      (hasNext ? input[i + 1]!.text.startsWith(c.text.slice(at + src.text.length)) : at + src.text.length === c.text.length);
    assert.ok(placesOf(src.text, c.text).some(fits), `${where}: text is not (end of previous) + original + (start of next), or context is not the added part`);
    assert.ok(c.token_count >= src.token_count, where);
  });
}

/** Every index where `original` occurs in `text`. */
function placesOf(original: string, text: string): number[] {
  const out: number[] = [];
  for (let at = text.indexOf(original); at >= 0; at = text.indexOf(original, at + 1)) out.push(at);
  return out;
}

describe('input from any chunker is accepted unchanged', () => {
  test('ids, metadata, embedding and unknown fields are carried through; a chunk without id gets the deterministic one', async () => {
    const chunks = chunksOf(['abcd', 'efgh']).map((c, i) => ({ ...c, metadata: { node: i }, embedding: [i, 0.5], custom: 'kept', context: 'old' }));
    delete (chunks[1] as Partial<Chunk>).id;
    const out = await refine(chunks, { context_size: 2, method: 'suffix' });
    assert.deepEqual(out[0], {
      id: 'c0',
      text: 'abcdef',
      start_index: 0,
      end_index: 4,
      token_count: 6,
      context: 'ef',
      embedding: [0, 0.5],
      metadata: { node: 0 },
      custom: 'kept',
    });
    assert.match(out[1]!.id, /^chnk_/);
    assert.equal(out[1]!.context, 'old', 'a chunk that gets no new context keeps the one it had');
  });

  test('the output of every registered chunker refines with every method', async () => {
    // Chunkers that call an LLM (slumber) get a local fake one.
    await withFakeLlmEnv(async () => {
      for (const chunker of registry.list('chunker')) {
        if (chunker.missing.length) continue;
        const chunks = (await chunkWith(chunker, chunker.validateConfig({}), FIXTURES.ascii!.repeat(4), 'codepoint')) as Chunk[];
        for (const method of METHODS) checkContract(chunks, await refine(chunks, { method, context_size: 3 }), method, true, `${chunker.name}/${method}`);
      }
    });
  });

  test('[] gives [] and a list of lists gives one list per list', async () => {
    assert.deepEqual(await refineWith(overlap, overlap.validateConfig({}), []), []);
    const lists = [chunksOf(['ab', 'cd']), [], chunksOf(['x'])];
    const out = (await refineWith(overlap, overlap.validateConfig({ context_size: 1 }), lists)) as Chunk[][];
    assert.deepEqual(out.map(rows), [
      [
        ['abc', 3, 'c'],
        ['cd', 2, null],
      ],
      [],
      [['x', 1, null]],
    ]);
  });
});

describe('over HTTP', () => {
  let app: TestApp;
  before(async () => (app = await startApp()));
  after(async () => app.close());

  test('justified works, and tokenizer_or_token_counter names the tokenizer', async () => {
    const res = await app.post('/v1/refine/overlap', {
      chunks: chunksOf(['one two ', 'three four'], word.count),
      method: 'justified',
      context_size: 1,
      tokenizer_or_token_counter: 'word',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(rows(res.body), [
      ['one two three ', 3, 'three '],
      ['two three four', 3, 'two '],
    ]);
  });

  const errors: [string, Record<string, unknown>, (string | number)[], RegExp][] = [
    [
      'a chunk missing a field names its index and the field',
      {
        chunks: [
          { text: 'a', start_index: 0, end_index: 1, token_count: 1 },
          { text: 'b', start_index: 1 },
        ],
      },
      ['body', 'chunks', 1, 'end_index'],
      /Field required/,
    ],
    [
      'a chunk in a nested list names both indexes',
      { chunks: [[], [{ text: 'b', start_index: 1, end_index: 2 }]] },
      ['body', 'chunks', 1, 0, 'token_count'],
      /Field required/,
    ],
    ['an unknown method lists the valid ones', { chunks: [], method: 'both' }, ['body', 'method'], /"suffix" or "prefix" or "justified"/],
    ['an unknown mode lists the valid ones', { chunks: [], mode: 'sentence' }, ['body', 'mode'], /"token" or "recursive"/],
    ['context_size 0', { chunks: [], context_size: 0 }, ['body', 'context_size'], /a number > 0 and < 1 or an integer ≥ 1 \(got 0\)/],
  ];
  for (const [name, body, loc, msg] of errors) {
    test(`${name} → 422`, async () => {
      const res = await app.post('/v1/refine/overlap', body);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(res.body.detail[0].loc, loc);
      assert.match(res.body.detail[0].msg, msg);
    });
  }
});
