/** Hugging Face tokenizer.json files as tokenizers: exact counts, and ends on code points. */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { isChunkdError } from '../kernel/errors.js';
import fc from 'fast-check';
import { loadHfTokenizer } from '../kernel/tokenizers/hf.js';
import { fastWordLevel, type WordLevelJson } from '../kernel/tokenizers/word-level.js';
import { loadTokenizer, tokensIn } from '../kernel/tokenizers/index.js';
import { discover } from '../kernel/discovery.js';
import type { Chunk } from '../kernel/chunk.js';
import { FIXTURES } from './helpers/fixtures.js';
import { byteBpeJson, tempDir, wordLevelJson, wordPieceJson, writeTokenizer } from './helpers/tiny-models.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { chunkWith } from './helpers/run.js';

const FILES = {
  wordlevel: writeTokenizer(wordLevelJson(['hello', 'world', ',', '!', 'café', 'the', 'quick', 'fox'])),
  wordpiece: writeTokenizer(wordPieceJson(['un', '##aff', '##able', 'cafe', 'x', 'the', '##s', 'fox', 'quick', '.'])),
  bpe: writeTokenizer(byteBpeJson(['l l', 'll o'])),
};

describe('counts and ends, by hand', () => {
  const cases: [keyof typeof FILES, string, number[]][] = [
    // hello , world ! ; each token's span starts where the previous one ended
    ['wordlevel', 'Hello, World!', [5, 6, 12, 13]],
    // an unknown word is one [UNK] token spanning it
    ['wordlevel', 'hello zzz world', [5, 9, 15]],
    // un ##aff ##able | cafe (accent stripped) | [UNK] for 🦛, ending where x begins | x
    ['wordpiece', 'Unaffable Café 🦛 x', [2, 5, 9, 14, 18, 19]],
    // h e llo | Ġ h Ã © llo (é is two byte tokens: both end after it) | Ġ + the 4 bytes of 🦛
    ['bpe', 'hello héllo 🦛', [1, 2, 5, 6, 7, 8, 8, 11, 12, 14, 14, 14, 14]],
  ];
  for (const [kind, text, ends] of cases) {
    test(`${kind}: ${JSON.stringify(text)}`, async () => {
      const t = await loadTokenizer(FILES[kind]);
      assert.equal(t.count(text), ends.length);
      assert.deepEqual([...t.ends(text)], ends);
    });
  }
});

describe('invariants on every fixture', () => {
  for (const kind of Object.keys(FILES) as (keyof typeof FILES)[]) {
    test(kind, async () => {
      const t = await loadTokenizer(FILES[kind]);
      for (const text of [...Object.values(FIXTURES), 'x', '🦛', 'a\u0301']) {
        const ends = t.ends(text);
        assert.equal(ends.length, t.count(text));
        let prev = 0;
        for (const e of ends) {
          assert.ok(e >= prev && e <= text.length);
          const hi = text.charCodeAt(e - 1);
          const lo = text.charCodeAt(e);
          assert.ok(!(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff), `end ${e} splits a surrogate pair`);
          prev = e;
        }
        if (ends.length) assert.equal(ends.at(-1), text.length);
        assert.equal(tokensIn(ends, 0, text.length), ends.length);
      }
    });
  }
});

describe('naming and errors', () => {
  test('a directory holding tokenizer.json works, and a file is loaded once', async () => {
    const dir = join(FILES.wordlevel, '..');
    assert.equal((await loadTokenizer(dir)).count('hello world'), 2);
    assert.equal(await loadTokenizer(FILES.wordlevel), await loadTokenizer(FILES.wordlevel));
  });

  test('a file that is not a usable tokenizer.json → 400 that quotes nothing of the file', async () => {
    const file = join(tempDir(), 'tokenizer.json');
    writeFileSync(file, 'this is { not json');
    await assert.rejects(
      loadTokenizer(file),
      (e) => isChunkdError(e) && e.status === 400 && /not a known name nor a tokenizer\.json/.test(String(e.detail)) && !String(e.detail).includes('this is'),
    );
  });
});

describe('the direct WordLevel implementation (used by the built-in model)', () => {
  test('gives the same ids and counts as @huggingface/tokenizers on fixtures and random text', async () => {
    // The comparison means something only if this file takes the direct path at all.
    assert.ok(fastWordLevel(JSON.parse(readFileSync(FILES.wordlevel, 'utf8')) as WordLevelJson), 'the fixture must take the direct path');
    const direct = (await loadHfTokenizer(FILES.wordlevel))!;
    const library = (await loadHfTokenizer(FILES.wordlevel, { direct: false }))!;
    // [UNK] is an added token: the direct path hands that text to the library, made on first need.
    const texts = [...Object.values(FIXTURES), 'Hello, World! [UNK] café CAFÉ', 'İstanbul ﬁne', 'constructor __proto__ toString hasOwnProperty'];
    for (const text of texts) assert.deepEqual(direct.ids(text), library.ids(text), JSON.stringify(text));
    assert.equal(direct.unkId, library.unkId);
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        assert.deepEqual(direct.ids(text), library.ids(text));
        assert.equal(direct.count(text), library.count(text));
      }),
    );
  });
});

const token = (await discover()).get('chunker', 'token');

describe('a tokenizer.json path in a chunker', () => {
  for (const kind of Object.keys(FILES) as (keyof typeof FILES)[]) {
    test(`token windows over ${kind} tokens have exact code-point offsets`, async () => {
      for (const text of Object.values(FIXTURES)) {
        const chunks = (await chunkWith(token, token.validateConfig({ tokenizer: FILES[kind], chunk_size: 3 }), text, 'codepoint')) as Chunk[];
        assert.equal(chunks.map((c) => c.text).join(''), text);
        for (const c of chunks) assert.equal([...text].slice(c.start_index, c.end_index).join(''), c.text);
      }
    });
  }
});
