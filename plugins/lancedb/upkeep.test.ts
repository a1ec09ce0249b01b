/**
 * Upkeep's order of work against a table that records its calls and holds its vector index build
 * until the test releases it: the build runs beside the table's writes, not in their queue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Table } from '@lancedb/lancedb';
import { KeyedQueue } from '../../kernel/index.js';
import { FORCE_COMMITS, Upkeep } from './upkeep.js';

function heldTable(rows: number) {
  const calls: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const building = new Promise<void>((resolve) => (started = resolve));
  const table = {
    optimize: async () => void calls.push('optimize'),
    countRows: async () => rows,
    listIndices: async () => [],
    schema: async () => ({ fields: [{ name: 'vector', type: { listSize: 8 } }] }),
    createIndex: async () => {
      calls.push('createIndex');
      started();
      await held;
    },
  };
  return { table: table as unknown as Table, calls, release, building };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

test('a vector index is built beside the writes: the commit that starts it, and the writes after it, do not wait for it', async () => {
  const queue = new KeyedQueue();
  const upkeep = new Upkeep(queue, { vectorIndexRows: 100, settleMs: 3_600_000 });
  const { table, calls, release, building } = heldTable(1000);
  const commit = () =>
    queue.run('t', async () => {
      upkeep.writing('t');
      await upkeep.committed('t', table);
    });
  try {
    for (let i = 1; i < FORCE_COMMITS; i++) await commit();
    assert.deepEqual(calls, [], 'no upkeep before the forced one');
    // The commit that forces upkeep (a writer that never pauses): compaction, then the build starts.
    let answered = false;
    const forcing = commit().then(() => (answered = true));
    await building;
    await turn();
    assert.equal(answered, true, 'the commit that started the build was answered while the build runs');
    await forcing;
    assert.deepEqual(calls, ['optimize', 'createIndex']);

    // More writes while the build runs, another forced upkeep among them: all answered, no second build, no compaction under it.
    for (let i = 0; i < FORCE_COMMITS + 5; i++) await commit();
    assert.deepEqual(calls, ['optimize', 'createIndex']);

    let settled = false;
    const done = upkeep.settled().then(() => (settled = true));
    await turn();
    assert.equal(settled, false, 'settled() waits for the build');
    release();
    await done;
    // The compaction left out while the index was built runs once it is; trained on 1,000 rows, no second build below 2,000.
    assert.deepEqual(calls, ['optimize', 'createIndex', 'optimize']);
    await upkeep.settled();
    assert.deepEqual(calls, ['optimize', 'createIndex', 'optimize']);
  } finally {
    release();
  }
});

test('a build under way when its table is dropped counts for nothing: the table made again under the name trains its own, at once', async () => {
  const queue = new KeyedQueue();
  const upkeep = new Upkeep(queue, { vectorIndexRows: 100, settleMs: 3_600_000 });
  const first = heldTable(1000);
  const second = heldTable(1000);
  const commit = (table: Table) =>
    queue.run('t', async () => {
      upkeep.writing('t');
      await upkeep.committed('t', table);
    });
  try {
    for (let i = 0; i < FORCE_COMMITS; i++) await commit(first.table);
    await first.building;
    upkeep.forget('t'); // dropped while its build runs
    first.release(); // and that build then ends
    for (let i = 0; i < FORCE_COMMITS; i++) await commit(second.table);
    assert.deepEqual(second.calls, ['optimize', 'createIndex'], "the new table's build did not wait for the dropped one's, nor take it for its own");
    second.release();
    await upkeep.settled();
  } finally {
    first.release();
    second.release();
  }
});
