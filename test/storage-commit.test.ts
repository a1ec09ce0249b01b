/**
 * A pipeline write resolves only once its transaction has committed: the moment create() or
 * update() resolves, its row is on disk (the WAL or the main file), read synchronously, with no
 * further statement of the store run. A statement left unfinished (a RETURNING row read before
 * the statement was stepped to its end) keeps its implicit transaction open until it is
 * finalized: an answer sent in that window is lost with kill -9.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DATABASE_FILE } from '../service/storage/service.js';
import { SqliteStore } from '../service/storage/sqlite.js';
import type { PipelineRecord } from '../service/storage/store.js';

const tmp = mkdtempSync(join(tmpdir(), 'chunkd-commit-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const record = (name: string): PipelineRecord => {
  const now = new Date().toISOString();
  return { id: `id-${name}`, name, description: null, steps: [{ type: 'chunk', chunker: 'token', config: {} }], created_at: now, updated_at: now };
};

/** Whether `marker` is in the database's files on disk right now (synchronous: nothing else runs meanwhile). */
function onDisk(file: string, marker: string): boolean {
  const needle = Buffer.from(marker);
  return [file, `${file}-wal`].some((f) => existsSync(f) && readFileSync(f).includes(needle));
}

test('create and update resolve after their commit: the row is on disk at that moment, every time', async () => {
  const file = join(tmp, DATABASE_FILE);
  const store = await SqliteStore.open(file);
  const late: string[] = [];
  try {
    // Concurrent writes, as under load: each checks its own row the instant it resolves.
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const name = `committed-create-${i}-${'x'.repeat(8)}`;
        const { id } = await store.create(record(name));
        if (!onDisk(file, name)) late.push(name);
        const description = `committed-update-${i}-${'y'.repeat(8)}`;
        await store.update(id, { description, updated_at: new Date().toISOString() });
        if (!onDisk(file, description)) late.push(description);
      }),
    );
  } finally {
    await store.close();
  }
  assert.deepEqual(late, [], `${late.length} of 80 writes resolved before they were on disk`);
});
