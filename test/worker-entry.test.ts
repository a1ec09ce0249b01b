/**
 * A pool's workers load their module with import(), never require() (kernel/engine/placement/
 * worker-entry.ts): on Node 20, a worker stopped while require() instantiates an ES module graph
 * aborts the whole process, which a replaced worker stopped by a shutdown, or an extraction worker
 * starting for an upload whose client left, would do at random. Each pool runs a job that lists which
 * of the entry and the worker module its thread loaded with require(): the entry alone.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { closeExtractPools, WorkerPool } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import { moduleBeside } from '../kernel/paths.js';

const job = moduleBeside(import.meta.url, './helpers/required-job');
/** The entry was loaded with require(), as piscina loads a worker's module; the worker module was not. */
const onlyTheEntry = (files: string[]) => assert.deepEqual(files, ['entry.cjs']);

after(() => closeExtractPools());

test('the worker pool: its threads load the worker module with import()', async () => {
  const pool = new WorkerPool({ threads: 1 });
  try {
    onlyTheEntry(await pool.job<string[]>(job, null));
  } finally {
    await pool.close();
  }
});

test('the extraction pool: its threads load the worker module with import()', async () => {
  const outcome = await extractPool({ threads: 1, maxMs: 60_000, maxQueue: 4, memoryMb: 512 }).run({ kind: 'job', module: job, payload: null }, 0);
  assert.ok('done' in outcome, JSON.stringify(outcome));
  onlyTheEntry(outcome.done as string[]);
});
