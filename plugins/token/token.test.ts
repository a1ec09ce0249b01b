import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const token = registry.get('chunker', 'token');
const chunk = async (text: string, config: Record<string, unknown> = {}) =>
  (await chunkWith(token, token.validateConfig({ ...config }), text, 'codepoint')) as Chunk[];
const rows = (chunks: Chunk[]) => chunks.map((c) => [c.text, c.start_index, c.end_index, c.token_count]);

describe('windows (reference goldens and more)', () => {
  const cases: [string, string, Record<string, unknown>, [string, number, number, number][]][] = [
    [
      'overlap 2 of 4 (reference)',
      'abcdefghij',
      { chunk_size: 4, chunk_overlap: 2 },
      [
        ['abcd', 0, 4, 4],
        ['cdef', 2, 6, 4],
        ['efgh', 4, 8, 4],
        ['ghij', 6, 10, 4],
      ],
    ],
    [
      'no trailing overlap-only window (reference)',
      'hello world',
      { chunk_size: 5 },
      [
        ['hello', 0, 5, 5],
        [' worl', 5, 10, 5],
        ['d', 10, 11, 1],
      ],
    ],
    [
      'fractional overlap: 0.5 of 4 is 2 tokens',
      'abcdefghij',
      { chunk_size: 4, chunk_overlap: 0.5 },
      [
        ['abcd', 0, 4, 4],
        ['cdef', 2, 6, 4],
        ['efgh', 4, 8, 4],
        ['ghij', 6, 10, 4],
      ],
    ],
    [
      'a fraction is floored: 0.25 of 10 is 2 tokens',
      'abcdefghijklmnop',
      { chunk_size: 10, chunk_overlap: 0.25 },
      [
        ['abcdefghij', 0, 10, 10],
        ['ijklmnop', 8, 16, 8],
      ],
    ],
    [
      'a decimal fraction is floored exactly: 0.29 of 100 is 29 tokens, not 28',
      'a'.repeat(130),
      { chunk_size: 100, chunk_overlap: 0.29 },
      [
        ['a'.repeat(100), 0, 100, 100],
        ['a'.repeat(59), 71, 130, 59],
      ],
    ],
    [
      'a fraction that floors to 0 is no overlap',
      'abcdef',
      { chunk_size: 3, chunk_overlap: 0.2 },
      [
        ['abc', 0, 3, 3],
        ['def', 3, 6, 3],
      ],
    ],
    ['text shorter than a window', 'abc', { chunk_size: 10 }, [['abc', 0, 3, 3]]],
    [
      'code points, not UTF-16 units',
      '🦛🦛🦛',
      { chunk_size: 2 },
      [
        ['🦛🦛', 0, 2, 2],
        ['🦛', 2, 3, 1],
      ],
    ],
    [
      'CRLF is two characters',
      'a\r\nb',
      { chunk_size: 2 },
      [
        ['a\r', 0, 2, 2],
        ['\nb', 2, 4, 2],
      ],
    ],
    [
      'word tokens carry their trailing space',
      'one two three four',
      { chunk_size: 2, tokenizer: 'word' },
      [
        ['one two ', 0, 8, 2],
        ['three four', 8, 18, 2],
      ],
    ],
    [
      'byte windows end before a character they would split',
      'héllo',
      { chunk_size: 2, tokenizer: 'byte' },
      [
        ['h', 0, 1, 1],
        ['é', 1, 2, 2],
        ['ll', 2, 4, 2],
        ['o', 4, 5, 1],
      ],
    ],
    [
      'a character wider than the window is one chunk',
      '🦛a',
      { chunk_size: 3, tokenizer: 'byte' },
      [
        ['🦛', 0, 1, 4],
        ['a', 1, 2, 1],
      ],
    ],
    [
      'an overlap that starts inside a character starts after it',
      'aé€',
      { chunk_size: 4, chunk_overlap: 2, tokenizer: 'byte' },
      [
        ['aé', 0, 2, 3],
        ['€', 2, 3, 3],
      ],
    ],
    [
      'byte overlap on ASCII',
      'abcdef',
      { chunk_size: 4, chunk_overlap: 2, tokenizer: 'byte' },
      [
        ['abcd', 0, 4, 4],
        ['cdef', 2, 6, 4],
      ],
    ],
    [
      'repeated text keeps each occurrence at its own offset',
      'abab',
      { chunk_size: 2 },
      [
        ['ab', 0, 2, 2],
        ['ab', 2, 4, 2],
      ],
    ],
  ];
  for (const [name, text, config, expected] of cases) {
    test(name, async () => assert.deepEqual(rows(await chunk(text, config)), expected));
  }

  test('BPE tokens inside one character: no empty chunk, no broken offset, nothing lost', async () => {
    // With cl100k, '語' is two byte-level tokens; windows of 1 token would cut inside it.
    const text = '日本語の文章です🦛';
    const chunks = await chunk(text, { chunk_size: 1, tokenizer: 'cl100k_base' });
    assert.ok(chunks.every((c) => c.text.length > 0));
    assert.equal(chunks.map((c) => c.text).join(''), text);
    const cl100k = await loadTokenizer('cl100k_base');
    assert.equal(
      chunks.reduce((n, c) => n + c.token_count, 0),
      cl100k.count(text),
      'every token is counted exactly once',
    );
    for (const c of chunks) assert.equal([...text].slice(c.start_index, c.end_index).join(''), c.text);
  });

  test('cl100k windows hold chunk_size tokens of the input encoding', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(20);
    const chunks = await chunk(text, { chunk_size: 7, tokenizer: 'cl100k_base' });
    assert.ok(chunks.slice(0, -1).every((c) => c.token_count === 7));
    assert.equal(chunks.map((c) => c.text).join(''), text);
  });
});

describe('config errors', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['overlap equal to size', { chunk_size: 4, chunk_overlap: 4 }, /smaller than chunk_size/],
    ['overlap above size', { chunk_size: 4, chunk_overlap: 9 }, /smaller than chunk_size/],
    ['a non-whole overlap of 1 or more', { chunk_size: 4, chunk_overlap: 1.5 }, /whole number of tokens or a fraction/],
  ];
  for (const [name, config, message] of cases) {
    test(`${name} → 400`, async () => {
      await assert.rejects(chunk('abcdefgh', config), (e) => isChunkdError(e) && e.status === 400 && message.test(String(e.detail)));
    });
  }

  test('a negative overlap or a zero size is a 422 from the schema', () => {
    assert.throws(
      () => token.validateConfig({ chunk_overlap: -1 }),
      (e) => isChunkdError(e) && e.status === 422,
    );
    assert.throws(
      () => token.validateConfig({ chunk_size: 0 }),
      (e) => isChunkdError(e) && e.status === 422,
    );
  });
});

describe('properties', () => {
  test('without overlap windows tile the input; with overlap each window starts one step later', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }),
        fc.integer({ min: 1, max: 9 }),
        fc.integer({ min: 0, max: 8 }),
        async (text, size, overlap) => {
          fc.pre(text.trim() !== '' && overlap < size);
          const chunks = await chunk(text, { chunk_size: size, chunk_overlap: overlap });
          const cps = [...text];
          chunks.forEach((c, i) => {
            assert.equal(cps.slice(c.start_index, c.end_index).join(''), c.text);
            assert.ok(c.token_count <= size && c.token_count === c.end_index - c.start_index);
            if (i > 0) assert.equal(c.start_index, chunks[i - 1]!.start_index + size - overlap);
          });
          assert.equal(chunks.at(-1)!.end_index, cps.length);
          if (overlap === 0) assert.equal(chunks.map((c) => c.text).join(''), text);
        },
      ),
      { numRuns: 200 },
    );
  });
});
