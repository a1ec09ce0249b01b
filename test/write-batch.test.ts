/**
 * A job's held writes (service/stores/write-batch.ts): written together per collection once the
 * batch ran; a store that is down is waited for and retried until it answers (judged by counts of
 * tries, not by time); a refusal of the chunks fails those documents; a stopping server gives up.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { ChunkdError } from '../kernel/errors.js';
import type { StoresService } from '../service/stores/service.js';
import { WriteBatch } from '../service/stores/write-batch.js';

/** Stores whose writeMany fails `down` times with the 503 a store that does not answer gets, then records. */
function flaky(down: number, refuse = false) {
  const written: { collection: string; documents: string[] }[] = [];
  let calls = 0;
  const stores = {
    names: () => ['s'],
    byHandshake: () => 's',
    handshakeOf: () => 'memory',
    list: async () => [],
    search: async () => [],
    searchWithMode: async () => ({ mode: 'vector' as const, hits: [] }),
    deleteDocument: async () => 0,
    close: async () => {},
    write: async () => {
      throw new Error('writeMany is used when the stores have it');
    },
    writeMany: async (_s: string, collection: string, docs: { document: string; chunks: Chunk[] }[]) => {
      calls++;
      if (calls <= down) throw new ChunkdError('UNAVAILABLE', "The store 's' (memory) did not complete the call: retry later.");
      if (refuse) throw new ChunkdError('CONFLICT', "The collection 'c' holds vectors of the model 'a'.");
      written.push({ collection, documents: docs.map((d) => d.document) });
    },
  } satisfies StoresService;
  return { stores, written, calls: () => calls };
}

const chunk: Chunk = { id: 'x', text: 'a', start_index: 0, end_index: 1, token_count: 1, embedding: [1, 0] };

describe('WriteBatch', () => {
  test('held writes go in one call per collection, the last write of a document winning', async () => {
    const { stores, written } = flaky(0);
    const batch = new WriteBatch(stores);
    await batch.service.write('s', 'c', 'd1', [chunk], 'm');
    await batch.service.write('s', 'c', 'd2', [chunk], 'm');
    await batch.service.write('s', 'c', 'd1', [chunk, chunk], 'm');
    await batch.service.write('s', 'other', 'd3', [chunk], 'm');
    assert.deepEqual(written, [], 'nothing is written before the flush');
    const refused = await batch.flush(() => false);
    assert.equal(refused.size, 0);
    assert.deepEqual(written, [
      { collection: 'c', documents: ['d1', 'd2'] },
      { collection: 'other', documents: ['d3'] },
    ]);
  });

  test('a store that is down is retried until it answers; the flush resolves only then', async () => {
    const { stores, written, calls } = flaky(2);
    const batch = new WriteBatch(stores);
    await batch.service.write('s', 'c', 'd1', [chunk], 'm');
    const waits: number[] = [];
    await batch.flush(
      () => false,
      (_e, pause) => waits.push(pause),
    );
    assert.equal(calls(), 3);
    assert.equal(batch.retries, 2);
    assert.deepEqual(waits, [500, 1000], 'growing pauses');
    assert.deepEqual(written, [{ collection: 'c', documents: ['d1'] }]);
  });

  test('a refusal (409) fails the documents it held; a stopping server gives up the wait by throwing', async () => {
    const refusing = flaky(0, true);
    const batch = new WriteBatch(refusing.stores);
    await batch.service.write('s', 'c', 'd1', [chunk], 'm');
    const refused = await batch.flush(() => false);
    assert.equal(refused.get('d1')?.code, 'CONFLICT');
    const down = flaky(Infinity);
    const stopping = new WriteBatch(down.stores);
    await stopping.service.write('s', 'c', 'd1', [chunk], 'm');
    await assert.rejects(
      stopping.flush(() => true),
      (e: ChunkdError) => e.code === 'UNAVAILABLE',
    );
    assert.equal(down.calls(), 1);
  });
});
