import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Chunk } from '../../kernel/chunk.js';
import { discover } from '../../kernel/discovery.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { chunkWith } from '../../test/helpers/run.js';

const registry = await discover();
const sentence = registry.get('chunker', 'sentence');
const chunk = async (text: string | string[], config: Record<string, unknown> = {}) =>
  chunkWith(sentence, sentence.validateConfig({ ...config }), text, 'codepoint');
const rows = (chunks: Chunk[]) => chunks.map((c) => [c.text, c.start_index, c.end_index, c.token_count]);
type Row = [string, number, number, number];

const THREE = 'First sentence. Second sentence. Third sentence.';

describe('sentence chunks (REFERENCE.md examples and more)', () => {
  const cases: [string, string, Record<string, unknown>, Row[]][] = [
    [
      'size 20 (reference)',
      THREE,
      { chunk_size: 20 },
      [
        ['First sentence. ', 0, 16, 16],
        ['Second sentence. ', 16, 33, 17],
        ['Third sentence.', 33, 48, 15],
      ],
    ],
    [
      'min_sentences_per_chunk 2 (reference)',
      THREE,
      { chunk_size: 20, min_sentences_per_chunk: 2 },
      [
        ['First sentence. Second sentence. ', 0, 33, 33],
        ['Third sentence.', 33, 48, 15],
      ],
    ],
    [
      'include_delim next (reference)',
      THREE,
      { chunk_size: 20, include_delim: 'next' },
      [
        ['First sentence', 0, 14, 14],
        ['. Second sentence', 14, 31, 17],
        ['. Third sentence.', 31, 48, 17],
      ],
    ],
    [
      'unicode offsets in code points (reference)',
      'Ünïcödé sentence one. 日本語の文章です。 Another sentence here.',
      { chunk_size: 25 },
      [
        ['Ünïcödé sentence one. ', 0, 22, 22],
        ['日本語の文章です。 Another sentence here.', 22, 54, 32],
      ],
    ],
    [
      'sentences packed while the sum fits (≤ chunk_size)',
      THREE,
      { chunk_size: 33 },
      [
        ['First sentence. Second sentence. ', 0, 33, 33],
        ['Third sentence.', 33, 48, 15],
      ],
    ],
    [
      'an over-long sentence is its own chunk, never cut',
      'Short one here. ' + 'x'.repeat(40) + '. Tail sentence.',
      { chunk_size: 20 },
      [
        ['Short one here. ', 0, 16, 16],
        ['x'.repeat(40) + '. ', 16, 58, 42],
        ['Tail sentence.', 58, 72, 14],
      ],
    ],
    [
      'overlap repeats whole sentences that fit (tokens + 1 each)',
      THREE,
      { chunk_size: 33, chunk_overlap: 18 },
      [
        ['First sentence. Second sentence. ', 0, 33, 33],
        ['Second sentence. Third sentence.', 16, 48, 32],
      ],
    ],
    [
      'overlap too small for one sentence: none',
      THREE,
      { chunk_size: 33, chunk_overlap: 17 },
      [
        ['First sentence. Second sentence. ', 0, 33, 33],
        ['Third sentence.', 33, 48, 15],
      ],
    ],
    [
      'a delimiter string',
      'alpha beta gamma;delta epsilon zeta;eta',
      { chunk_size: 20, delim: ';', min_characters_per_sentence: 1 },
      [
        ['alpha beta gamma;', 0, 17, 17],
        ['delta epsilon zeta;', 17, 36, 19],
        ['eta', 36, 39, 3],
      ],
    ],
    [
      'CJK delimiters',
      '日本語の文章です。これは二番目の文です。三番目。',
      { chunk_size: 10, delim: ['。'], min_characters_per_sentence: 1 },
      [
        ['日本語の文章です。', 0, 9, 9],
        ['これは二番目の文です。', 9, 20, 11],
        ['三番目。', 20, 24, 4],
      ],
    ],
    [
      'emoji count as one character each',
      '🦛🦛🦛🦛 hippos here. 🦛 and more hippos.',
      { chunk_size: 18 },
      [
        ['🦛🦛🦛🦛 hippos here. ', 0, 18, 18],
        ['🦛 and more hippos.', 18, 36, 18],
      ],
    ],
    [
      'CRLF: the \\n ends a line; the \\r stays with it',
      'First line of text.\r\nSecond line of text.\r\n',
      { chunk_size: 22 },
      [
        ['First line of text.\r\n', 0, 21, 21],
        ['Second line of text.\r\n', 21, 43, 22],
      ],
    ],
    [
      'a short first sentence joins the next',
      'Hi. This sentence is long. Another long sentence.',
      { chunk_size: 30 },
      [
        ['Hi. This sentence is long. ', 0, 27, 27],
        ['Another long sentence.', 27, 49, 22],
      ],
    ],
    // Chonkie's minimum rule (issue 18): a piece joins the running piece when either is shorter than
    // min_characters_per_sentence UTF-8 bytes.
    [
      'a lone newline stays with the paragraph before (Chonkie, issue example)',
      'First sentence here.\n\nSecond sentence here.',
      { chunk_size: 25, min_characters_per_sentence: 12 },
      [
        ['First sentence here.\n\n', 0, 22, 22],
        ['Second sentence here.', 22, 43, 21],
      ],
    ],
    [
      'a short sentence stays with the one before (Chonkie, issue example)',
      'This is a long sentence. Short. Another long sentence.',
      { chunk_size: 30, min_characters_per_sentence: 12 },
      [
        ['This is a long sentence. Short. ', 0, 32, 32],
        ['Another long sentence.', 32, 54, 22],
      ],
    ],
    [
      'the minimum counts UTF-8 bytes (日本語. is 11 bytes, 5 characters)',
      'Long enough sentence. 日本語. Another long sentence.',
      { chunk_size: 22, min_characters_per_sentence: 8 },
      [
        ['Long enough sentence. ', 0, 22, 22],
        ['日本語. ', 22, 27, 5],
        ['Another long sentence.', 27, 49, 22],
      ],
    ],
    [
      'repeated sentences keep their own offsets',
      'Same sentence again. Same sentence again. ',
      { chunk_size: 21 },
      [
        ['Same sentence again. ', 0, 21, 21],
        ['Same sentence again. ', 21, 42, 21],
      ],
    ],
    [
      'word tokenizer',
      'One two three. Four five six. Seven.',
      { chunk_size: 3, tokenizer: 'word', min_characters_per_sentence: 1 },
      [
        ['One two three. ', 0, 15, 3],
        ['Four five six. ', 15, 30, 3],
        ['Seven.', 30, 36, 1],
      ],
    ],
  ];
  for (const [name, text, config, expected] of cases) {
    test(name, async () => assert.deepEqual(rows((await chunk(text, config)) as Chunk[]), expected));
  }

  test('a batch gives one list per text (reference)', async () => {
    const out = (await chunk(['One sentence here. Two sentence here.', ''], { chunk_size: 20 })) as Chunk[][];
    assert.deepEqual(out.map(rows), [
      [
        ['One sentence here. ', 0, 19, 19],
        ['Two sentence here.', 19, 37, 18],
      ],
      [],
    ]);
  });

  test('BPE token_count is a recount of the chunk text; approximate counts from one encoding', async () => {
    const text = 'The quick brown fox jumps over the lazy dog. '.repeat(30);
    const cl100k = await loadTokenizer('cl100k_base');
    for (const approximate of [false, true]) {
      const chunks = (await chunk(text, { chunk_size: 40, tokenizer: 'cl100k_base', approximate })) as Chunk[];
      assert.equal(chunks.map((c) => c.text).join(''), text);
      for (const c of chunks) {
        const recount = cl100k.count(c.text);
        if (approximate) assert.ok(Math.abs(recount - c.token_count) <= 1);
        else assert.equal(c.token_count, recount);
      }
    }
  });
});

describe('config errors', () => {
  const cases: [string, Record<string, unknown>, number, RegExp][] = [
    ['overlap equal to size', { chunk_size: 10, chunk_overlap: 10 }, 400, /smaller than chunk_size/],
    ['unknown tokenizer', { tokenizer: 'nope' }, 400, /tokenizer/],
    ['an empty delimiter', { delim: '' }, 422, /delim/],
    ['an empty delimiter list', { delim: [] }, 422, /delim/],
    ['include_delim other than prev/next', { include_delim: 'both' }, 422, /include_delim/],
    ['min_sentences_per_chunk 0', { min_sentences_per_chunk: 0 }, 422, /min_sentences_per_chunk/],
  ];
  for (const [name, config, status, message] of cases) {
    test(`${name} → ${status}`, async () => {
      await assert.rejects((async () => chunk(THREE, config))(), (e) => isChunkdError(e) && e.status === status && message.test(JSON.stringify(e.detail)));
    });
  }
});
