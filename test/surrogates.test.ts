import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { convertOffsets } from '../kernel/offsets.js';
import { discover } from '../kernel/discovery.js';
import { idsReady, sourceKey } from '../kernel/ids.js';
import { chunkEach as chunkMany } from './helpers/run.js';
import { forgetSurrogatePairs, pairScanAlong, surrogatePairs } from '../kernel/surrogates.js';
import { PIECE } from '../kernel/utf16-pieces.js';

/** Low-half index of every well-formed surrogate pair, the slow way. */
function naivePairs(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < text.length; i++) {
    const hi = text.charCodeAt(i);
    const lo = text.charCodeAt(i + 1);
    if (hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff) out.push(++i);
  }
  return out;
}

describe('surrogatePairs: the shared scan behind code-point counts and offsets', () => {
  const cases: [string, string, number[]][] = [
    ['ASCII: none', 'plain text', []],
    ['CJK is one unit per character: none', '日本語の文章', []],
    ['emoji pairs', 'a🦛b🦛', [2, 5]],
    ['a lone high surrogate is not a pair', 'a\ud83eb', []],
    ['a lone low surrogate is not a pair', '\udc00🦛', [2]],
    ['CRLF and an emoji', 'x\r\n🦛', [4]],
  ];
  for (const [name, text, expected] of cases) test(name, () => assert.deepEqual([...surrogatePairs(text)], expected));

  test('asked in turn about different texts (the one-entry cache), it always answers for the text given', () => {
    const unit = fc.constantFrom('a', ' ', '日', '🦛', '\ud83e', '\udc00');
    fc.assert(
      fc.property(fc.array(fc.string({ unit, maxLength: 30 }), { minLength: 1, maxLength: 6 }), (texts) => {
        for (const t of [...texts, ...texts]) assert.deepEqual([...surrogatePairs(t)], naivePairs(t));
      }),
      { numRuns: 200 },
    );
  });

  test("long texts (found by byte search, a piece at a time): pairs across piece edges, lone halves, and characters whose low byte looks like a high surrogate's", () => {
    // U+00D8, U+4ED8, U+01DB: a byte 0xD8–0xDB in the low place, which is not a surrogate's.
    const unit = fc.constantFrom('a', 'Ø', '付', 'Û', '日', '🦛', '𠀀', '\ud83e', '\udc00', '\udbff\udfff');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 20_000, maxLength: 80_000 }), (units) => {
        const text = units.join('');
        assert.deepEqual([...surrogatePairs(text)], naivePairs(text));
      }),
      { numRuns: 12 },
    );
    // A pair whose halves fall in two pieces.
    const edge = 'x'.repeat(PIECE - 1) + '🦛' + 'y'.repeat(PIECE) + '\ud800';
    assert.deepEqual([...surrogatePairs(edge)], [PIECE]);
  });

  test('found along the id key (one pass over the bytes for both): the same pairs, and the same key', async () => {
    await idsReady;
    const unit = fc.constantFrom('a', 'Ø', '付', '🦛', '\ud83e', '\udc00', '\udbff\udfff');
    fc.assert(
      fc.property(fc.array(unit, { minLength: 600, maxLength: 80_000 }), (units) => {
        const text = units.join('') + '🦛';
        const alone = sourceKey(text);
        forgetSurrogatePairs();
        const scan = pairScanAlong(text);
        assert.ok(scan, 'a long text not scanned yet is scanned along');
        assert.deepEqual([...sourceKey(text, scan.piece)], [...alone]);
        scan.done();
        assert.equal(pairScanAlong(text), undefined, 'its pairs are kept');
        assert.deepEqual([...surrogatePairs(text)], naivePairs(text));
      }),
      { numRuns: 12 },
    );
  });

  test("a long text chunked through the kernel (its pairs found along the id key): each chunk's code-point offsets slice out its text", async () => {
    const registry = await discover();
    const plugin = registry.get('chunker', 'fast');
    const config = plugin.validateConfig({ chunk_size: 64, delimiters: '.' }, ['config']);
    const unit = fc.constantFrom('a', '.', ' ', 'Ø', '付', '🦛', '𠀀', '\r\n', '\ud83e');
    await fc.assert(
      fc.asyncProperty(fc.array(unit, { minLength: 600, maxLength: 40_000 }), async (units) => {
        const text = units.join('') + '🦛 end.';
        forgetSurrogatePairs(); // as a request meets a new text: the pairs come from the scan along the id key
        const [chunks] = await chunkMany(plugin, config, [text], 'codepoint');
        const points = [...text];
        let end = 0;
        for (const c of chunks!) {
          assert.equal(points.slice(c.start_index, c.end_index).join(''), c.text);
          assert.ok(c.start_index >= end);
          end = c.end_index;
        }
        assert.equal(end, points.length);
      }),
      { numRuns: 10 },
    );
  });

  test('code-point offsets equal the length of [...prefix] at every code-point boundary', () => {
    const unit = fc.constantFrom('a', '日', '🦛', '\r\n');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        const cps = [...text];
        const utf16 = cps.map((_, i) => cps.slice(0, i).join('').length);
        assert.deepEqual(
          convertOffsets(text, utf16.slice(), 'codepoint'),
          cps.map((_, i) => i),
        );
        assert.deepEqual(convertOffsets(text, utf16.slice().reverse(), 'codepoint'), cps.map((_, i) => i).reverse());
      }),
      { numRuns: 200 },
    );
  });
});
