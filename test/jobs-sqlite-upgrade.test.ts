/**
 * A jobs database made by an older chunkd opens and is brought up to date: its documents table,
 * made before documents carried metadata and an uploaded file's chef and structure, gains those
 * columns, and a document that carries them is stored and counted under the jobs' quota.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { open } from 'sqlite';
import sqlite3 from 'sqlite3';
import { SqliteJobStore } from '../service/jobs/sqlite.js';
import { documentBytes, type JobDocument } from '../service/jobs/store.js';

const dir = mkdtempSync(join(tmpdir(), 'chunkd-jobs-upgrade-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const logger = { log() {} } as never;

test('an old documents table gains meta, chef and structure; a file document keeps them, counted in its bytes', async () => {
  const file = join(dir, 'jobs.db');
  const old = await open({ filename: file, driver: sqlite3.Database });
  await old.exec(
    'CREATE TABLE job_documents (job_id TEXT NOT NULL, idx INTEGER NOT NULL, doc_id TEXT NOT NULL, text TEXT NOT NULL, PRIMARY KEY (job_id, idx)) WITHOUT ROWID',
  );
  await old.close();

  const store = await SqliteJobStore.open(file, { batchSize: 8, ttlS: 3600, logger, limits: { maxJobsBytes: 1 << 20, maxDocumentOutputBytes: 1 << 20 } });
  try {
    const doc: JobDocument = { id: 'guide', text: '# Guide\n\nRun it.', meta: '{"name":"guide.md"}', chef: 'markdown', structure: '{"spans":[]}' };
    const intake = await store.receive('job-1', new Date().toISOString());
    await intake.add([doc]);
    await intake.commit({ pipeline_id: null, steps: [{ type: 'chunk', chunker: 'token' }] as never, offset_unit: 'codepoint' });
    const db = await open({ filename: file, driver: sqlite3.Database });
    try {
      const columns = (await db.all<{ name: string }[]>('PRAGMA table_info(job_documents)')).map((c) => c.name);
      assert.deepEqual(
        ['meta', 'chef', 'structure'].filter((c) => !columns.includes(c)),
        [],
      );
      const row = await db.get<{ chef: string; structure: string }>('SELECT chef, structure FROM job_documents WHERE job_id = ?', 'job-1');
      assert.deepEqual(row, { chef: 'markdown', structure: '{"spans":[]}' });
      const { bytes } = (await db.get<{ bytes: number }>('SELECT bytes FROM jobs WHERE id = ?', 'job-1'))!;
      assert.equal(bytes, documentBytes(doc), 'the quota counts the chef and the structure');
    } finally {
      await db.close();
    }
  } finally {
    await store.close();
  }
});
