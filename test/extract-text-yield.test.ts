/**
 * txt and md are decoded on the event loop a slice at a time (decodeUtf8Yielding), letting other
 * work run between slices: judged by how many other callbacks ran while 16 MiB files decoded,
 * and by the text and the 422 being those of a one-shot decode, characters split across slices
 * included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DECODE_SLICE_BYTES, decodeUtf8, decodeUtf8Yielding } from '../kernel/chef/decode.js';
import { extractText } from './helpers/extract.js';
import { rejectsWith } from './helpers/env.js';

const MiB = 1024 * 1024;

describe('txt/md: decoded a slice at a time', () => {
  it('ten 16 MiB uploads decoded at once let other callbacks run between their slices', async () => {
    const bytes = new Uint8Array(Buffer.alloc(16 * MiB, 'chunkd text. '));
    let turns = 0;
    let done = false;
    const tick = () => {
      if (done) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const texts = await Promise.all(Array.from({ length: 10 }, (_, i) => extractText(bytes, { filename: `${i}.txt` })));
    done = true;
    assert.ok(texts.every((t) => t.text.length === 16 * MiB));
    // One turn per slice at least: sixteen slices a file.
    assert.ok(turns >= (16 * MiB) / DECODE_SLICE_BYTES, `${turns} turns of the event loop ran during the decoding`);
  });

  it('the same text as a one-shot decode, with characters split across slices; a BOM is dropped', async () => {
    const text = `\ufeff${'é日😀a'.repeat(DECODE_SLICE_BYTES / 5)}`;
    const bytes = new TextEncoder().encode(text);
    assert.ok(bytes.length > 2 * DECODE_SLICE_BYTES);
    assert.equal(await decodeUtf8Yielding(bytes), decodeUtf8(bytes));
    assert.equal((await decodeUtf8Yielding(bytes)).charCodeAt(0), 'é'.charCodeAt(0));
  });

  it('invalid UTF-8 anywhere, or a character cut off at the end → 422', async () => {
    const valid = new Uint8Array(Buffer.alloc(3 * MiB, 'a'));
    for (const at of [0, DECODE_SLICE_BYTES - 1, DECODE_SLICE_BYTES, valid.length - 1]) {
      const bad = valid.slice();
      bad[at] = 0xff;
      await rejectsWith(extractText(bad, { filename: 'bad.md' }), 422, /not valid UTF-8/);
    }
    const cut = Buffer.concat([Buffer.from(valid), Buffer.from([0xe6, 0x97])]);
    await rejectsWith(extractText(new Uint8Array(cut), { filename: 'cut.txt' }), 422, /not valid UTF-8/);
  });
});
