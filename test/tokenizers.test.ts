/** The tokenizer service: every named tokenizer counts exactly and maps tokens to exact offsets. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isChunkdError } from '../kernel/errors.js';
import { loadTokenizer, spanCounter, TOKENIZER_NAMES, tokensIn } from '../kernel/tokenizers/index.js';
import { FIXTURES } from './helpers/fixtures.js';
import { referenceEncoder } from './helpers/tiktoken.js';

const TEXTS = [...Object.values(FIXTURES), 'x', '🦛', 'a\u0301', '\ud800 lone surrogate'];

describe('counts', () => {
  const cases: [string, string, number][] = [
    ['character', 'héllo 🦛!', 8],
    ['character', '👨‍👩‍👧', 5],
    ['byte', 'héllo 🦛!', 12],
    ['word', '  two words  ', 2],
    ['word', 'one', 1],
    ['word', '\n\n', 0],
  ];
  for (const [name, text, expected] of cases) {
    test(`${name}: ${JSON.stringify(text)} → ${expected}`, async () => assert.equal((await loadTokenizer(name)).count(text), expected));
  }

  for (const name of ['gpt2', 'r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base']) {
    test(`${name} counts what tiktoken counts, offline, special tokens as plain text`, async () => {
      const enc = referenceEncoder(name);
      const t = await loadTokenizer(name);
      for (const text of [...TEXTS, 'text with <|endoftext|> inside']) assert.equal(t.count(text), enc.encode_ordinary(text).length);
    });
  }
});

describe('ends: one per token, non-decreasing, on code-point boundaries, last at the end', () => {
  for (const name of TOKENIZER_NAMES) {
    test(name, async () => {
      const t = await loadTokenizer(name);
      for (const text of TEXTS) {
        const ends = t.ends(text);
        assert.equal(ends.length, t.count(text), `${name}: ${JSON.stringify(text.slice(0, 20))}`);
        let prev = 0;
        for (const e of ends) {
          assert.ok(e >= prev && e <= text.length);
          const hi = text.charCodeAt(e - 1);
          const lo = text.charCodeAt(e);
          assert.ok(!(hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff), `${name}: end ${e} splits a surrogate pair`);
          prev = e;
        }
        if (ends.length && name !== 'word') assert.equal(ends[ends.length - 1], text.length);
        assert.equal(tokensIn(ends, 0, text.length), ends.length);
      }
    });
  }

  test('a BPE token that ends inside a multi-byte character ends after that character', async () => {
    const t = await loadTokenizer('cl100k_base');
    const text = '語'; // one character, several byte-level tokens
    const ends = t.ends(text);
    assert.ok(ends.length > 1, 'the fixture must span several tokens');
    assert.deepEqual(
      [...ends],
      [...ends].map(() => 1),
    );
  });

  test('character: each code point ends a token, for texts of every length, with and without pairs; an earlier answer stays as it was', async () => {
    const t = await loadTokenizer('character');
    const naive = (text: string) => {
      let at = 0;
      return [...text].map((cp) => (at += cp.length));
    };
    const first = t.ends('abc');
    const texts = ['', 'a', 'x'.repeat(5000), '🦛'.repeat(3) + 'ab', 'y'.repeat(70_000), 'z'.repeat(1 << 16), 'a🦛'.repeat(40_000), '\ud800 lone'];
    for (const text of texts) {
      const ends = t.ends(text);
      assert.deepEqual([...ends], naive(text), `length ${text.length}`);
    }
    assert.deepEqual([...first], [1, 2, 3]);
  });
});

describe('spanCounter: exact for additive and cheap tokenizers, additive for BPE', () => {
  /** Every cut on a code-point boundary of a text, as UTF-16 offsets. */
  const boundaries = (text: string) => {
    const out = [0];
    for (const ch of text) out.push(out.at(-1)! + ch.length);
    return out;
  };
  for (const name of TOKENIZER_NAMES) {
    test(name, async () => {
      const t = await loadTokenizer(name);
      for (const text of [...TEXTS, 'plain ascii only', 'lone \ud800 surrogate and 🦛']) {
        const counter = spanCounter(t, text);
        const cuts = boundaries(text);
        for (let i = 0; i < cuts.length; i += 3) {
          for (let j = i + 1; j < cuts.length; j += 5) {
            const [s, e] = [cuts[i]!, cuts[j]!];
            if (t.additive || t.cheapCount)
              assert.equal(counter.count(s, e), t.count(text.slice(s, e)), `${name}: [${s}, ${e}) of ${JSON.stringify(text.slice(0, 20))}`);
            else assert.equal(counter.count(0, s) + counter.count(s, e) + counter.count(e, text.length), t.count(text));
          }
        }
        assert.deepEqual(counter.ends(), t.ends(text));
      }
    });
  }
});

describe('names', () => {
  test('an unknown name is a 400 listing every valid name', async () => {
    await assert.rejects(loadTokenizer('gpt-4'), (e) => {
      assert.ok(isChunkdError(e));
      assert.equal(e.status, 400);
      for (const name of TOKENIZER_NAMES) assert.match(String(e.detail), new RegExp(`\\b${name}\\b`));
      return true;
    });
  });

  test('a path that holds no tokenizer.json is a 400 that says what is expected', async () => {
    await assert.rejects(loadTokenizer('/nonexistent/tokenizer.json'), (e) => isChunkdError(e) && e.status === 400 && /tokenizer\.json/.test(String(e.detail)));
  });

  test('encoders are built once and shared', async () => {
    assert.equal(await loadTokenizer('cl100k_base'), await loadTokenizer('cl100k_base'));
  });
});
