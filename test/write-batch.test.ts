/**
 * A job's held writes (service/stores/write-batch.ts): written together per collection once the
 * batch ran; a store that does not take them is one StoreWait, and the job's wait (nextTry) is
 * bounded: by tries of the same error, and by the total time (judged on a given clock, not a real one);
 * a refusal of the chunks fails those documents.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { ChunkdError } from '../kernel/errors.js';
import { StoreWait, WriteBatch } from '../service/stores/write-batch.js';
import { writingStores } from './helpers/writing-stores.js';
import { nextTry, SAME_FAILURES, type WaitState } from '../service/jobs/store-wait.js';

/** Stores whose writeMany fails `down` times with the 503 a store that does not answer gets, then records. */
function flaky(down: number, refuse = false) {
  const written: { collection: string; documents: string[] }[] = [];
  let calls = 0;
  const stores = writingStores(async (collection, docs) => {
    calls++;
    if (calls <= down) throw new ChunkdError('UNAVAILABLE', "The store 's' (memory) did not complete the call: retry later.");
    if (refuse) throw new ChunkdError('CONFLICT', "The collection 'c' holds vectors of the model 'a'.");
    written.push({ collection, documents: docs.map((d) => d.document) });
  });
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
    const refused = await batch.flush();
    assert.equal(refused.size, 0);
    assert.deepEqual(written, [
      { collection: 'c', documents: ['d1', 'd2'] },
      { collection: 'other', documents: ['d3'] },
    ]);
  });

  test('a store that does not take the writes is a StoreWait: one try, nothing recorded, the writes held for the next run', async () => {
    const { stores, written, calls } = flaky(1);
    const batch = new WriteBatch(stores);
    await batch.service.write('s', 'c', 'd1', [chunk], 'm');
    await assert.rejects(batch.flush(), (e: StoreWait) => e instanceof StoreWait && e.store === 's');
    assert.equal(calls(), 1, 'one try: the consumer schedules the next');
    assert.deepEqual(written, []);
    assert.equal((await batch.flush()).size, 0);
    assert.deepEqual(written, [{ collection: 'c', documents: ['d1'] }]);
  });

  test('a refusal of a write of many falls on the documents it concerns: each is written again on its own', async () => {
    const written: string[][] = [];
    const stores = writingStores(async (_c, docs) => {
      if (docs.some((d) => d.document === 'bad')) throw new ChunkdError('VALIDATION', "The text of 'bad' holds a NUL character.");
      written.push(docs.map((d) => d.document));
    });
    const batch = new WriteBatch(stores);
    for (const d of ['d1', 'bad', 'd2']) await batch.service.write('s', 'c', d, [chunk], 'm');
    const refused = await batch.flush();
    assert.deepEqual([...refused.keys()], ['bad']);
    assert.equal(refused.get('bad')?.code, 'VALIDATION');
    assert.deepEqual(written, [['d1'], ['d2']], 'before: the refusal failed d1 and d2 with it');
  });

  test('a refusal (409) fails the documents it held', async () => {
    const refusing = flaky(0, true);
    const batch = new WriteBatch(refusing.stores);
    await batch.service.write('s', 'c', 'd1', [chunk], 'm');
    const refused = await batch.flush();
    assert.equal(refused.get('d1')?.code, 'CONFLICT');
  });
});

describe('a job waiting for its store (nextTry)', () => {
  const down = new StoreWait('s', 'connection refused', 'connect ECONNREFUSED', undefined);
  const failing = (reason: string) => new StoreWait('s', undefined, reason, undefined);

  test('a store that cannot be reached is tried again with growing pauses, then its documents fail once the wait is over', () => {
    let state: WaitState | undefined;
    let now = 0;
    const pauses: number[] = [];
    for (;;) {
      const step = nextTry(state, down, now, 60);
      if ('fail' in step) {
        assert.equal(step.fail.code, 'UNAVAILABLE');
        assert.match(step.fail.detail, /did not take this document's write for \d+ s/);
        assert.match(step.fail.detail, /--job-store-wait-s/);
        break;
      }
      pauses.push(step.pauseMs);
      state = step.state;
      now += step.pauseMs;
      assert.ok(pauses.length < 100, 'the wait is bounded');
    }
    assert.deepEqual(pauses.slice(0, 4), [1000, 2000, 4000, 8000]);
    assert.ok(now <= 60_000, `waited ${now} ms in all, within the 60 s given`);
  });

  test('a store answering the same error fails the documents after a bounded number of tries, with the reason', () => {
    let state: WaitState | undefined;
    let tries = 0;
    for (;;) {
      tries++;
      const step = nextTry(state, failing('column cannot have more than 16000 dimensions'), tries * 1000, 600);
      if ('fail' in step) {
        assert.equal(step.fail.code, 'UPSTREAM');
        assert.match(step.fail.detail, /failed this document's write the same way 3 times: column cannot have more than 16000 dimensions/);
        break;
      }
      state = step.state;
    }
    assert.equal(tries, SAME_FAILURES);
  });

  test('different errors are not "the same way": the wait goes on (bounded by time)', () => {
    let state: WaitState | undefined;
    for (let i = 0; i < 5; i++) {
      const step = nextTry(state, failing(`error ${i}`), i, 600);
      assert.ok(!('fail' in step));
      state = step.state;
    }
  });
});
