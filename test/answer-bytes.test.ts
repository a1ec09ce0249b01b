/**
 * The bytes of a JSON answer made on the calling thread: a chunker's plain chunks are written field
 * by field (kernel/engine/output/plain-json.ts) and carved from a shared slab (kernel/engine/output/utf8-slab.ts); both must
 * give exactly the bytes of JSON.stringify of the chunks, whatever the text holds.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { JSON_INTEGER_BYTES, writeJsonInteger, writeJsonString } from '../kernel/engine/output/json-bytes.js';
import { isPlain, markPlain, plainChunkJson, plainListBound, writePlainList } from '../kernel/engine/output/plain-json.js';
import type { Registry } from '../kernel/registry.js';
import { chunkTexts as chunkMany } from '../kernel/engine/steps/chunk.js';
import { inline } from '../kernel/engine/index.js';
import { Runner, type Recipe } from '../kernel/engine/index.js';
import { slabUtf8 } from '../kernel/engine/output/utf8-slab.js';

const LIMITS = { maxOutputBytes: 1e9, maxDocumentOutputBytes: 1e9, maxChunks: 1e7 };
const TRICKY = [
  'say "hi"\\ and\ttabs\u0000\u001f',
  '日本語の文。次の文。',
  '🦛🦛 emoji 👨‍👩‍👧 joined',
  'CRLF\r\nline\r\n',
  'lone \ud800 high and \udc00 low',
  'same same same same same same',
  '\u2028\u2029 separators',
];

describe('answer bytes', () => {
  let registry: Registry;
  before(async () => {
    registry = await discover();
  });

  const answer = async (name: string, config: Record<string, unknown>, text: string, unit: 'codepoint' | 'utf16') => {
    const plugin = registry.get('chunker', name);
    const full = plugin.validateConfig(structuredClone(config), ['config']);
    const recipe: Recipe = { steps: [{ plugin, config: full }], unit, returnType: 'chunks' };
    const [bytes] = await new Runner(inline, LIMITS).answer(recipe, [text], { list: false });
    const [chunks] = await chunkMany(plugin, full, [text], unit);
    return { bytes: Buffer.from(bytes!).toString('utf8'), expected: JSON.stringify(chunks) };
  };

  test('a chunker answer equals JSON.stringify of its chunks: quotes, controls, CJK, emoji, CRLF, lone surrogates, repeats', async () => {
    for (const text of TRICKY) {
      for (const [name, config] of [
        ['token', { chunk_size: 3 }],
        ['fast', { chunk_size: 8 }],
        ['recursive', { chunk_size: 6 }],
      ] as const) {
        for (const unit of ['codepoint', 'utf16'] as const) {
          const { bytes, expected } = await answer(name, config, text, unit);
          assert.equal(bytes, expected, `${name} ${unit} ${JSON.stringify(text)}`);
        }
      }
    }
  });

  test('random texts, many answers in a row (across slabs): each equals JSON.stringify of its chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', minLength: 1, maxLength: 400 }), fc.integer({ min: 1, max: 40 }), async (text, size) => {
        const { bytes, expected } = await answer('token', { chunk_size: size }, text, 'codepoint');
        assert.equal(bytes, expected);
      }),
      { numRuns: 400 },
    );
  });

  test("only the kernel's own lists are plain, and a plain chunk's JSON is JSON.stringify's", async () => {
    const plugin = registry.get('chunker', 'token');
    const [chunks] = await chunkMany(plugin, plugin.validateConfig({ chunk_size: 4 }, ['config']), ['héllo "wörld" 🦛\n'], 'codepoint');
    assert.ok(isPlain(chunks!));
    for (const c of chunks!) assert.equal(plainChunkJson(c), JSON.stringify(c));
    assert.ok(!isPlain(chunks!.map((c) => c)), 'a copied list is not marked');
    const marked: Chunk[] = markPlain([{ id: 'chnk_x', text: 'a\u0000"', start_index: 0, end_index: 3, token_count: 3 }]);
    assert.equal(plainChunkJson(marked[0]!), JSON.stringify(marked[0]));
  });

  test("bytes written straight from a string are JSON.stringify's, UTF-8 encoded: every UTF-16 unit, paired or lone", () => {
    const into = new Uint8Array(6 * 300 + 2);
    const check = (s: string) =>
      assert.equal(Buffer.from(into.subarray(0, writeJsonString(into, 0, s))).toString('utf8'), JSON.stringify(s), JSON.stringify(s));
    for (const t of TRICKY) check(t);
    for (let c = 0; c < 0x10000; c++) check(String.fromCharCode(c) + 'a' + String.fromCharCode(c));
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }), (units) => check(String.fromCharCode(...units))),
      { numRuns: 2000 },
    );
  });

  test('integers are written as their decimal digits, up to the largest safe one', () => {
    const into = new Uint8Array(JSON_INTEGER_BYTES);
    const check = (v: number) => assert.equal(Buffer.from(into.subarray(0, writeJsonInteger(into, 0, v))).toString(), String(v));
    for (const v of [0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 65_535, 2 ** 32, 10 ** 15, Number.MAX_SAFE_INTEGER]) check(v);
    fc.assert(fc.property(fc.maxSafeNat(), check), { numRuns: 2000 });
  });

  test("a plain list (or its texts) written into bytes is JSON.stringify's, within the bound it was given", () => {
    const chunk = fc.record({
      id: fc.string(),
      text: fc.string({ unit: 'binary' }),
      start_index: fc.maxSafeNat(),
      end_index: fc.maxSafeNat(),
      token_count: fc.maxSafeNat(),
    });
    fc.assert(
      fc.property(fc.array(chunk, { maxLength: 12 }), fc.boolean(), (list, texts) => {
        const bound = plainListBound(list, texts);
        const into = new Uint8Array(bound + 8).fill(0xee);
        const end = writePlainList(into, 4, list, texts);
        assert.ok(end - 4 <= bound, 'within its bound');
        assert.equal(into[end], 0xee, 'nothing written past its end');
        assert.equal(Buffer.from(into.subarray(4, end)).toString('utf8'), JSON.stringify(texts ? list.map((c) => c.text) : list));
      }),
      { numRuns: 1000 },
    );
  });

  test('slab bytes equal Buffer.from and stay as they were after later answers', () => {
    const made: [string, Uint8Array][] = [];
    for (let i = 0; i < 3000; i++) {
      const s = `${'é'.repeat(i % 97)}${i}🦛${'x'.repeat((i * 31) % 700)}`;
      made.push([s, slabUtf8(s)]);
    }
    const long = 'ü'.repeat(20_000);
    assert.deepEqual(Buffer.from(slabUtf8(long)), Buffer.from(long, 'utf8'));
    for (const [s, b] of made) assert.deepEqual(Buffer.from(b), Buffer.from(s, 'utf8'));
  });
});
