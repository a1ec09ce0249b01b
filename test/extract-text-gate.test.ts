/**
 * Without worker threads (with them see text-upload-bytes.test.ts) txt and md are decoded on the event loop, but no more than the extraction threads' count of
 * large files at once, with the same bounded queue as the extraction pool (kernel/engine/placement/extract-pool.ts):
 * judged by how many of a burst of 16 MiB uploads are read, refused with 503, and decoding at once.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { closeExtractPools } from '../kernel/engine/index.js';
import { inlineGate } from '../kernel/engine/placement/extract-pool.js';
import { extractText } from './helpers/extract.js';

const MiB = 1024 * 1024;

describe('txt/md: large files decoded a bounded number at a time', () => {
  after(closeExtractPools);

  it('ten parallel 16 MiB texts with 2 threads and a queue of 3: 5 read, 5 refused with 503 + Retry-After; never more than 2 decoding', async () => {
    const pool = { threads: 2, maxQueue: 3, maxMs: 30_000 };
    const bytes = new Uint8Array(Buffer.alloc(16 * MiB, 'plain text. '));
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => extractText(bytes, { filename: `${i}.${i % 2 ? 'md' : 'txt'}` }, { pool })));
    const read = results.filter((r) => r.status === 'fulfilled');
    const refused = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as { status: number; headers: Record<string, string> }] : []));
    assert.equal(read.length, 5);
    assert.ok(read.every((r) => r.value.text.length === 16 * MiB));
    assert.equal(refused.length, 5);
    assert.ok(refused.every((e) => e.status === 503 && /^[1-9]\d*$/.test(e.headers['Retry-After'] ?? '')));
    const gate = inlineGate({ ...pool, memoryMb: 512 });
    assert.equal(gate.peak, 2);
    assert.equal(gate.queued, 0);
  });

  it('small files are never queued', async () => {
    const pool = { threads: 1, maxQueue: 0, maxMs: 30_000 };
    const bytes = new Uint8Array(Buffer.alloc(200 * 1024, 'x'));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => extractText(bytes, { filename: `${i}.txt` }, { pool })));
    assert.equal(results.length, 20);
    assert.equal(inlineGate({ ...pool, memoryMb: 512 }).peak, 0);
  });
});
