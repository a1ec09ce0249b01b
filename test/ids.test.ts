import assert from 'node:assert/strict';
import { xxhash128 } from 'hash-wasm';
import { before, describe, test } from 'node:test';
import { chunkId, chunkIds, idsReady, sourceKey, standaloneChunkId } from '../kernel/ids.js';
import { chunkEach as chunkMany, refineEach as refineMany } from './helpers/run.js';
import { discover } from '../kernel/discovery.js';

const FORM = /^chnk_[0-9a-f]{32}$/;
const TEXT = 'The same words. The same words. 日本語。🦛 emoji\r\nand CRLF.';

describe('chunk ids', () => {
  before(() => idsReady);

  test('the same input and span give the same id, in the chnk_ + 32 hex form', () => {
    const cases: [string, number, number][] = [
      [TEXT, 0, 16],
      [TEXT, 16, TEXT.length],
      ['x', 0, 1],
      ['', 0, 0],
    ];
    for (const [text, start, end] of cases) {
      const id = chunkId(sourceKey(text), start, end);
      assert.match(id, FORM);
      assert.equal(chunkId(sourceKey(text), start, end), id, `${JSON.stringify(text)} [${start}, ${end})`);
    }
  });

  test('ids are stable across releases: these inputs keep these ids (change them only with a note in the README)', () => {
    const long = 'x'.repeat(100_000);
    assert.equal(chunkId(sourceKey(TEXT), 0, 16), 'chnk_177a955c7e68c078975145bdeec59f39');
    assert.equal(chunkId(sourceKey(TEXT), 16, TEXT.length), 'chnk_cb7d978f69514930ac848ac5b1e1df9c');
    assert.equal(chunkId(sourceKey(long), 0, 1), 'chnk_7746ed13aac8fc1bb36a5e2a7e4202f0');
  });

  test('ids made many at once (several blocks of the reused buffer) equal ids made one at a time, and keep their values', () => {
    const key = sourceKey(TEXT);
    assert.deepEqual(
      chunkIds(key, [
        { start: 0, end: 16 },
        { start: 16, end: TEXT.length },
      ]),
      ['chnk_177a955c7e68c078975145bdeec59f39', 'chnk_cb7d978f69514930ac848ac5b1e1df9c'],
    );
    const spans = Array.from({ length: 2_500 }, (_, i) => ({ start: i, end: i + 1 + (i % 7) }));
    const many = chunkIds(key, spans);
    assert.equal(many.length, spans.length);
    spans.forEach((s, i) => assert.equal(many[i], chunkId(key, s.start, s.end), `span ${i}`));
    assert.equal(new Set(many).size, spans.length);
    for (const id of many) assert.match(id, FORM);
  });

  test('the key is the XXH3-128 of the UTF-16LE code units, however long the text (it is hashed in pieces)', async () => {
    const pair = '🦛';
    // Pieces are 32,768 code units: put a surrogate pair across that boundary, and text past it.
    const texts = ['', 'x', TEXT, `${'a'.repeat(32_767)}${pair}${'b'.repeat(40_000)}`, TEXT.repeat(3000)];
    for (const text of texts) {
      const hex = await xxhash128(Buffer.from(text, 'utf16le'));
      const b = Buffer.from(hex, 'hex');
      const words = Array.from({ length: 4 }, (_, i) => b.readInt32LE(4 * i));
      assert.deepEqual(Array.from(sourceKey(text)), words, `a text of ${text.length} code units`);
    }
  });

  test('texts that differ only in a lone surrogate, or past the first piece, get different ids', () => {
    const long = 'x'.repeat(100_000);
    const pairs: [string, string][] = [
      ['a\uD800', 'a\uDBFF'],
      ['a\uD800', 'a\uFFFD'],
      [long, `${long.slice(0, -1)}y`],
    ];
    for (const [a, b] of pairs) assert.notEqual(chunkId(sourceKey(a), 0, 1), chunkId(sourceKey(b), 0, 1));
  });

  test('every span of one document gets its own id (same text at other positions included)', () => {
    const text = 'ab'.repeat(40);
    const key = sourceKey(text);
    const ids = new Set<string>();
    let spans = 0;
    for (let start = 0; start < text.length; start++) {
      for (let end = start + 1; end <= text.length; end++, spans++) ids.add(chunkId(key, start, end));
    }
    assert.equal(ids.size, spans);
  });

  test('the same span of different documents gets different ids', () => {
    const docs = ['The same words.', 'The same words!', 'The same words. ', 'the same words.', 'x'.repeat(1000), 'x'.repeat(1001)];
    const ids = docs.map((d) => chunkId(sourceKey(d), 0, 1));
    assert.equal(new Set(ids).size, docs.length);
  });

  test('a chunk without an id (refinery input) gets one from its own text and offsets', () => {
    const cases: [string, number, number, string, number, number][] = [
      ['same', 0, 4, 'same', 4, 8], // same text, other position
      ['same', 0, 4, 'Same', 0, 4], // other text, same position
    ];
    for (const [t1, s1, e1, t2, s2, e2] of cases) {
      const a = standaloneChunkId(t1, s1, e1);
      assert.match(a, FORM);
      assert.equal(standaloneChunkId(t1, s1, e1), a);
      assert.notEqual(standaloneChunkId(t2, s2, e2), a);
    }
  });

  test('through the kernel: ids are stable across runs and units, unique within and across documents', async () => {
    const registry = await discover();
    const token = registry.get('chunker', 'token');
    const config = token.validateConfig({ chunk_size: 4 }, ['config']);
    const texts = [TEXT, TEXT.repeat(2), `${TEXT} `];
    const first = await chunkMany(token, config, texts, 'codepoint');
    assert.deepEqual(await chunkMany(token, config, texts, 'codepoint'), first);
    assert.deepEqual(
      (await chunkMany(token, config, texts, 'utf8')).map((l) => l.map((c) => c.id)),
      first.map((l) => l.map((c) => c.id)),
    );
    const all = first.flat().map((c) => c.id);
    assert.ok(all.every((id) => FORM.test(id)));
    assert.equal(new Set(all).size, all.length);

    const overlap = registry.get('refinery', 'overlap');
    const bare = first[0]!.map(({ id: _, ...rest }) => rest);
    const refined = await refineMany(overlap, overlap.validateConfig({ context_size: 2 }, ['config']), [bare as never]);
    assert.deepEqual(
      refined[0]!.map((c) => c.id),
      bare.map((c) => standaloneChunkId(c.text, c.start_index, c.end_index)),
    );
  });
});
