/**
 * `chunkd ingest`'s writes (cli/ingest-writes.ts): held and written a batch at a time, as a job's
 * are; a file is told written only once the store confirmed it; a refusal fails the file it
 * concerns alone; a store that does not take the writes fails the held files with its reason.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { ChunkdError } from '../kernel/errors.js';
import type { StoresService } from '../service/stores/service.js';
import { IngestWrites } from '../cli/ingest-writes.js';
import { writingStores } from './helpers/writing-stores.js';

const chunk: Chunk = { id: 'x', text: 'a', start_index: 0, end_index: 1, token_count: 1, embedding: [1, 0] };

/** Stores that record each writeMany's documents; `answer` decides what a call does. */
function recording(answer: (documents: string[]) => void = () => {}) {
  const calls: string[][] = [];
  const stores = writingStores(async (_c, docs) => {
    const documents = docs.map((d) => d.document);
    answer(documents);
    calls.push(documents);
  });
  return { stores, calls };
}

/** Run `files` through IngestWrites as `chunkd ingest` does: the pipeline's write step, then ran(). */
async function ingest(stores: StoresService, files: string[], most = { files: 3, chars: 1_000_000 }, chars = 10) {
  const told: string[] = [];
  const writes = new IngestWrites(stores, most, {
    written: (id, digest) => told.push(`written ${id} ${digest}`),
    failed: (id, why) => told.push(`failed ${id}: ${why}`),
  });
  for (const f of files) {
    await writes.service.write('s', 'c', f, [chunk], 'm');
    await writes.ran(f, `sha-${f}`, chars);
  }
  await writes.flush();
  return told;
}

test('files are written a batch at a time (one writeMany per batch, before: one write per file), each told written after its batch', async () => {
  const { stores, calls } = recording();
  const told = await ingest(stores, ['a', 'b', 'c', 'd', 'e', 'f', 'g']);
  assert.deepEqual(calls, [['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
  assert.deepEqual(
    told,
    ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((f) => `written ${f} sha-${f}`),
  );
});

test('a batch also goes once its text passes the characters held at most', async () => {
  const { stores, calls } = recording();
  await ingest(stores, ['a', 'b', 'c', 'd'], { files: 100, chars: 25 }, 10);
  assert.deepEqual(calls, [['a', 'b', 'c'], ['d']]);
});

test('nothing is told written before the store confirmed it', async () => {
  const { stores, calls } = recording();
  const told: string[] = [];
  const writes = new IngestWrites(stores, { files: 3, chars: 1_000_000 }, { written: (id) => told.push(id), failed: () => assert.fail() });
  await writes.service.write('s', 'c', 'a', [chunk], 'm');
  await writes.ran('a', 'sha', 1);
  assert.deepEqual([calls, told], [[], []]);
  await writes.flush();
  assert.deepEqual([calls, told], [[['a']], ['a']]);
});

test('a file the store refuses fails alone, by its path; the files of its batch are written', async () => {
  const { stores } = recording((docs) => {
    if (docs.includes('bad.txt')) throw new ChunkdError('VALIDATION', "The text of 'bad.txt' holds a NUL character: remove it.");
  });
  const told = await ingest(stores, ['a', 'bad.txt', 'b']);
  assert.deepEqual(told, ['written a sha-a', "failed bad.txt: The text of 'bad.txt' holds a NUL character: remove it.", 'written b sha-b']);
});

test('a store that does not take the writes fails each held file with its reason; the next batch is tried afresh', async () => {
  let down = true;
  const { stores, calls } = recording(() => {
    if (down) throw new ChunkdError('UNAVAILABLE', "The store 's' (memory) did not complete the call: retry later.");
  });
  const told: string[] = [];
  const writes = new IngestWrites(
    stores,
    { files: 2, chars: 1_000_000 },
    { written: (id) => told.push(`written ${id}`), failed: (id, why) => told.push(`failed ${id}: ${why}`) },
  );
  for (const f of ['a', 'b']) {
    await writes.service.write('s', 'c', f, [chunk], 'm');
    await writes.ran(f, 'sha', 1);
  }
  down = false;
  await writes.service.write('s', 'c', 'c', [chunk], 'm');
  await writes.ran('c', 'sha', 1);
  await writes.flush();
  assert.match(told[0]!, /^failed a: the store 's' did not take the writes: .*retry later/);
  assert.match(told[1]!, /^failed b: /);
  assert.deepEqual(told.slice(2), ['written c']);
  assert.deepEqual(calls, [['c']], 'the failed batch is not written again with the next');
});
