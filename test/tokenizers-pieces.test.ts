/**
 * The piece cache (kernel/tokenizers/piece-cache.ts) must give exactly the WASM encoder's tokens:
 * the same token ends on real corpora, on tricky unicode, on random strings, and on a sample of
 * every Unicode plane in the contexts where a character's class decides the pieces.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { codeFiles, markdownDocs, prose } from '../bench/corpora.js';
import { TIKTOKEN_ENCODINGS, tiktoken } from '../kernel/tokenizers/bpe.js';
import { PieceCache } from '../kernel/tokenizers/piece-cache.js';
import { patStrOf, piecePattern } from '../kernel/tokenizers/pieces.js';
import { driftPattern, probeContexts, probeEncodings, VERIFIED_UNICODE } from '../kernel/tokenizers/unicode-drift.js';
import { byteEndsToUtf16 } from '../kernel/tokenizers/utf8.js';
import { FIXTURES } from './helpers/fixtures.js';
import { referenceEncoder, type ReferenceEncoder } from './helpers/tiktoken.js';

/** The encoder's own answer, with no cache in between: one encode of the whole text. */
function encoderEnds(enc: ReferenceEncoder, text: string): number[] {
  let b = 0;
  return [
    ...byteEndsToUtf16(
      text,
      [...enc.encode_ordinary(text)].map((id) => (b += enc.decode_single_token_bytes(id).length)),
    ),
  ];
}

const TRICKY = [
  ...Object.values(FIXTURES),
  "He's here, they'RE not, I'LL go; it'ſ odd'D 'S 'Ll", // contractions in every case, long s
  'a\u0085b\u0085\u0085c \ufeffd\ufeff\ufeff e\u00a0\u00a0f\u3000g', // U+0085 is white space for the encoder, U+FEFF is not
  '1234567 12 3 4444 ١٢٣٤ ৭৮৯ ⅫⅩ 1.5e10', // digit groups of three, other scripts' digits
  '    \n\n   \t\n  x  \r\n\r\n  \r  y    ', // white-space runs before and after line breaks
  'path/to/file.ts // comment /* block */ x=>y!==z',
  '\ud800 lone \udc00 surrogates \ud83e',
  'w'.repeat(300) + ' ' + ' '.repeat(100) + '9'.repeat(50), // pieces longer than the cached length
  'abc abc abc abc ABC Abc aBC',
];

describe("the piece cache gives the encoder's tokens", () => {
  for (const name of TIKTOKEN_ENCODINGS) {
    test(`${name}: corpora, tricky texts, a second (cached) pass`, () => {
      const enc = referenceEncoder(name);
      const t = tiktoken(name);
      const texts = [prose(100_000), codeFiles(60_000).join('\n'), markdownDocs(60_000).join('\n'), ...TRICKY];
      for (const pass of [1, 2]) {
        for (const text of texts) {
          const expected = encoderEnds(enc, text);
          assert.deepEqual([...t.ends(text)], expected, `${name} pass ${pass}: ${JSON.stringify(text.slice(0, 40))}`);
          assert.equal(t.count(text), expected.length);
        }
      }
    });
  }

  test('random strings over an alphabet of classes (property)', () => {
    const alphabet = [..."aZſK'sSlLdD 1٣\n\r\t\u0085\ufeff\u00a0\u2003.,!?/-_語한🦛\u0301\u200d", '\ud800', '\udc00'];
    const arb = fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }).map((a) => a.join(''));
    for (const name of probeEncodings) {
      const enc = referenceEncoder(name);
      const t = tiktoken(name);
      fc.assert(
        fc.property(arb, (text) => assert.deepEqual([...t.ends(text)], encoderEnds(enc, text))),
        { numRuns: 400 },
      );
    }
  });
});

describe('Unicode classes: this engine and the encoder agree outside the drift table', () => {
  test('the running Unicode version is one the drift table was made for', () => {
    assert.ok(
      VERIFIED_UNICODE.includes(process.versions.unicode ?? ''),
      `Unicode ${process.versions.unicode} is not verified: the piece cache is off (exact, slower). Run scripts/find-unicode-drift.ts, update kernel/tokenizers/unicode-drift.ts and add the version.`,
    );
  });

  for (const name of probeEncodings) {
    test(`${name}: every 61st code point outside the drift table, in every probe context`, () => {
      const enc = referenceEncoder(name);
      const lengthOf = (id: number) => enc.decode_single_token_bytes(id).length;
      const drift = driftPattern();
      const forced = new PieceCache(enc, piecePattern(patStrOf(name)), lengthOf, undefined);
      let checked = 0;
      let batch = '';
      const flush = () => {
        assert.deepEqual([...forced.ends(batch)], encoderEnds(enc, batch), `${name}: ${JSON.stringify(batch.slice(0, 60))}`);
        batch = '';
      };
      for (let cp = 0; cp <= 0x10ffff; cp += 61) {
        if (cp >= 0xd800 && cp <= 0xdfff) continue;
        const x = String.fromCodePoint(cp);
        if (drift?.test(x)) continue;
        batch += probeContexts(x);
        checked++;
        if (batch.length > 20_000) flush();
      }
      flush();
      assert.ok(checked > 18_000);
    });
  }

  test('each code point of the drift table really drifts in some encoding, and the tokenizers stay exact on it', () => {
    const encoders = probeEncodings.map((name) => {
      const enc = referenceEncoder(name);
      const forced = new PieceCache(enc, piecePattern(patStrOf(name)), (id) => enc.decode_single_token_bytes(id).length, undefined);
      return { name, enc, forced, t: tiktoken(name) };
    });
    const table = driftCodePoints(driftPattern());
    assert.ok(table.length > 0);
    for (const x of table) {
      const text = probeContexts(x);
      let drifts = false;
      for (const { name, enc, forced, t } of encoders) {
        const expected = encoderEnds(enc, text);
        drifts ||= JSON.stringify([...forced.ends(text)]) !== JSON.stringify(expected);
        assert.deepEqual([...t.ends(text)], expected, `${name}: U+${x.codePointAt(0)!.toString(16)}`);
      }
      assert.ok(drifts, `U+${x.codePointAt(0)!.toString(16)} is in the table but its tokens never differ`);
    }
  });
});

/** Every character the drift table names (a text holding one goes to the encoder whole). */
function driftCodePoints(drift: RegExp | undefined): string[] {
  const out: string[] = [];
  for (let cp = 0; drift && cp <= 0x10ffff; cp++) if ((cp < 0xd800 || cp > 0xdfff) && drift.test(String.fromCodePoint(cp))) out.push(String.fromCodePoint(cp));
  return out;
}
