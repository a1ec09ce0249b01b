/**
 * The O(n log n) byte-pair merge (kernel/tokenizers/bpe-merge.ts) must give exactly the WASM
 * encoder's tokens: on random texts over many scripts for every encoding (property), and once on
 * long pathological runs at sizes the encoder still handles. Beyond those sizes the encoder takes
 * seconds or aborts, so the tokenizers must answer without it, and never fall back to it there.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { isChunkdError } from '../kernel/errors.js';
import { TIKTOKEN_ENCODINGS, tiktoken } from '../kernel/tokenizers/bpe.js';
import { bytePairEnds, idsOf } from '../kernel/tokenizers/bpe-merge.js';
import { parse, ranksOf } from '../kernel/tokenizers/bpe-ranks.js';
import { LONG_PIECE } from '../kernel/tokenizers/piece-cache.js';
import { patStrOf, piecePattern } from '../kernel/tokenizers/pieces.js';
import { driftPattern } from '../kernel/tokenizers/unicode-drift.js';
import { byteEndsToUtf16 } from '../kernel/tokenizers/utf8.js';
import { startApp } from './helpers/app.js';
import { referenceEncoder, type ReferenceEncoder } from './helpers/tiktoken.js';

const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

/** The merge's ids for a text: the encoding's pieces, each merged alone. */
function mergedIds(name: string, text: string): number[] {
  const ranks = ranksOf(name);
  const ids: number[] = [];
  for (const m of text.matchAll(piecePattern(patStrOf(name)))) {
    const key = latin1(m[0]);
    ids.push(...idsOf(key, bytePairEnds(key, ranks), ranks));
  }
  return ids;
}

function encoderEnds(enc: ReferenceEncoder, text: string): number[] {
  let b = 0;
  return [
    ...byteEndsToUtf16(
      text,
      [...enc.encode_ordinary(text)].map((id) => (b += enc.decode_single_token_bytes(id).length)),
    ),
  ];
}

/** Scripts with one-, two-, three- and four-byte characters, combining marks and few letters (many repeats). */
const ALPHABETS = [
  'ab',
  'a',
  'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
  'etaoinshrdlu',
  'éèàçüößñøåÉ',
  'абвгдеёжзийклмнопрстуфхцчшщъыьэюя',
  'αβγδεζηθικλμνξοπρστυφχψω',
  'ابتثجحخدذرزسشصضطظعغفقكلمنهوي',
  'कखगघचछजझटडणतथदधनपफबभमयरलवशसह\u093e\u093f\u0940\u094d',
  '的一是不了人我在有他这中大来上国个到说们为子',
  '한국어텍스트입니다가나다',
  'ひらがなカタカナ',
  '🦛🙂👍🏽\u200d🔥',
  '!?.,;:-_/\\()[]{}<>*&^%$#@~`|"\'=+',
  '0123456789',
  ' \t\n\r',
  'e\u0301a\u0308',
];
const segment = fc.constantFrom(...ALPHABETS).chain((a) => fc.string({ unit: fc.constantFrom(...[...a]), minLength: 1, maxLength: 700 }));
const text = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join(''));

describe("the byte-pair merge gives the encoder's tokens", () => {
  for (const name of TIKTOKEN_ENCODINGS) {
    test(`${name}: random texts over many scripts (property)`, () => {
      const enc = referenceEncoder(name);
      fc.assert(
        fc.property(text, (t) => {
          assert.deepEqual(mergedIds(name, t), [...enc.encode_ordinary(t)]);
        }),
        { numRuns: 60 },
      );
    });
  }

  test('ties go to the leftmost pair, and a merge forms a token only when the joined bytes are one', () => {
    const tokens = ['a', 'b', 'c', 'd', 'aa', 'bc', 'ab', 'abc'];
    const r = parse(['!', '0', ...tokens.map((t) => Buffer.from(t).toString('base64'))].join(' '));
    const ids = (s: string) => idsOf(s, bytePairEnds(s, r), r).map((id) => tokens[id]);
    assert.deepEqual(ids('aaab'), ['aa', 'ab']); // the leftmost of two equal "aa" pairs first (else: a, aa, b)
    assert.deepEqual(ids('aaa'), ['aa', 'a']);
    assert.deepEqual(ids('abc'), ['abc']); // bc (rank 5) before ab (6), then a+bc is a token
    assert.deepEqual(ids('abd'), ['ab', 'd']); // ab+d is not a token: no merge
    assert.deepEqual(ids('dabcabc'), ['d', 'abc', 'abc']);
  });

  test('long pathological runs, once, at sizes the encoder still handles', () => {
    const rnd = (n: number, a: string) => Array.from({ length: n }, (_, i) => a[(i * 7919 + ((i * i) % 13)) % a.length]).join('');
    // Each run ten times LONG_PIECE in UTF-8 bytes and more (the merge's long-piece path); the encoder's time grows with the square of a run.
    const runs = [
      'a'.repeat(6_000),
      rnd(6_000, 'abcdefghijklmnopqrstuvwxyz'),
      '🙂'.repeat(1_500),
      '中'.repeat(2_000),
      'é'.repeat(3_000),
      '!'.repeat(6_000),
      ' '.repeat(6_000) + 'x',
      'ab'.repeat(3_000),
    ];
    assert.ok(runs.every((r) => Buffer.byteLength(r) >= 10 * LONG_PIECE));
    for (const name of ['cl100k_base', 'o200k_base', 'gpt2'] as const) {
      const enc = referenceEncoder(name);
      const t = tiktoken(name);
      for (const run of runs) {
        const expected = encoderEnds(enc, run);
        assert.deepEqual([...t.ends(run)], expected, `${name}: ${JSON.stringify(run.slice(0, 12))}… (${run.length})`);
        assert.equal(t.count(run), expected.length);
      }
    }
  });
});

describe('pieces the encoder cannot take', () => {
  for (const name of ['cl100k_base', 'o200k_base'] as const) {
    test(`${name}: 1,000,000 × 'a' and 200,000 random letters give tokens that spell the text`, () => {
      const enc = referenceEncoder(name);
      const ranks = ranksOf(name);
      for (const run of [
        'a'.repeat(1_000_000),
        Array.from({ length: 200_000 }, (_, i) => String.fromCharCode(97 + (((i * 2654435761) >>> 7) % 26))).join(''),
      ]) {
        const ends = tiktoken(name).ends(run);
        assert.ok(ends.length > 0 && ends.at(-1) === run.length);
        const key = latin1(run);
        const ids = idsOf(key, bytePairEnds(key, ranks), ranks);
        assert.equal(ids.length, ends.length);
        assert.ok(ids.every((id) => id !== undefined));
        assert.equal(Buffer.from(enc.decode(Uint32Array.from(ids))).toString('utf8'), run);
      }
    });
  }

  test('a text the encoder must take whole is refused with a 400 when it holds a long run, and answered when it does not', () => {
    const drift = driftPattern();
    const cp = [0x0c5c, 0x088f, 0xa7ce].find((c) => drift?.test(String.fromCodePoint(c)));
    assert.ok(cp !== undefined, 'a drift character to send the text to the encoder whole');
    const ch = String.fromCodePoint(cp);
    const t = tiktoken('cl100k_base');
    const enc = referenceEncoder('cl100k_base');
    const short = `x ${ch} ` + 'word '.repeat(400);
    assert.deepEqual([...t.ends(short)], encoderEnds(enc, short));
    const long = `x ${ch} ` + 'q'.repeat(LONG_PIECE * 40);
    for (const call of [() => t.ends(long), () => t.count(long)]) {
      assert.throws(call, (e) => isChunkdError(e) && e.status === 400 && /Break runs longer than 512 characters/.test(e.message));
    }
  });

  test("over HTTP, 1,000,000 × 'a' on cl100k_base is chunked (it was a 500: the encoder aborted)", async () => {
    const app = await startApp();
    try {
      const text = 'a'.repeat(1_000_000);
      const r = await app.post<{ text: string; token_count: number }[]>('/v1/chunk/token', { text, tokenizer: 'cl100k_base', chunk_size: 4096 });
      assert.equal(r.status, 200);
      assert.equal(r.body.map((c) => c.text).join(''), text);
      assert.equal(
        r.body.reduce((n, c) => n + c.token_count, 0),
        tiktoken('cl100k_base').count(text),
      );
    } finally {
      await app.close();
    }
  });
});
