/**
 * Jobs fill stores (issue 31, section 5): a job whose steps end in a write step writes every
 * document once, per-document progress as usual; after kill -9 and a restart on the same data
 * directory every document is in the store exactly once (rows counted). SQLite job back-end with
 * the embedded LanceDB default store.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { startChild, type ChildServer } from './helpers/child.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { writeModel2Vec } from './helpers/tiny-models.js';
import { corpus, jobResults, jobStatus, submitJob, waitForJob, type ResultLine } from './helpers/jobs.js';

const TINY = 'minishlab/potion-base-8M';
const steps = (collection: string) => [
  { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
  { type: 'write', store: 'default', config: { collection } },
];

async function count(url: string, collection: string, store = 'default'): Promise<number> {
  const stores = (await (await fetch(`${url}/v1/stores`)).json()) as { name: string; collections: { name: string; count: number }[] }[];
  return stores.find((s) => s.name === store)!.collections.find((c) => c.name === collection)?.count ?? 0;
}

const chunksIn = (lines: ResultLine[]) => lines.reduce((n, l) => n + (l.chunks?.length ?? 0), 0);

describe('a job with a write step', () => {
  let app: TestApp;
  before(async () => {
    const model = await writeModel2Vec(
      ['fox', 'dog'],
      [
        [1, 0],
        [0, 1],
      ],
    );
    app = await startApp({ 'job-batch-size': '7', 'model-map': `${TINY}=${model}` });
  });
  after(() => app.close());

  test('writes every document under its id; a rerun of the same documents leaves one copy', async () => {
    const docs = corpus(30);
    const submitted = await submitJob(app.url, { steps: steps('jobs'), documents: docs });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const done = await waitForJob(app.url, submitted.body.id);
    assert.deepEqual([done.status, done.documents.done, done.documents.failed], ['done', 30, 0]);
    const { lines } = await jobResults(app.url, submitted.body.id);
    assert.ok(lines.every((l) => l.chunks && l.chunks.length > 0));
    assert.equal(await count(app.url, 'jobs'), chunksIn(lines));
    const d7 = (await app.post('/v1/stores/default/search', { collection: 'jobs', query: 'fox', k: 100, filter: { document: 'd7' }, mode: 'vector' })).body as {
      text: string;
      start_index: number;
      end_index: number;
    }[];
    assert.equal(d7.length, lines.find((l) => l.document_id === 'd7')!.chunks!.length);
    for (const h of d7) assert.equal(Array.from(docs[7]!.text).slice(h.start_index, h.end_index).join(''), h.text);

    const again = await submitJob(app.url, { steps: steps('jobs'), documents: docs });
    await waitForJob(app.url, again.body.id);
    assert.equal(await count(app.url, 'jobs'), chunksIn(lines), 'documents replaced, not added');
  });

  test('chunks of another model than the collection’s: each document fails with the 409 naming both, nothing written', async () => {
    const before = await count(app.url, 'jobs');
    const other = [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
      { type: 'refine', refinery: 'embeddings', config: { embedding_model: TINY } },
      { type: 'write', store: 'default', config: { collection: 'jobs' } },
    ];
    const submitted = await submitJob(app.url, { steps: other, documents: corpus(3) });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const done = await waitForJob(app.url, submitted.body.id);
    assert.deepEqual([done.status, done.documents.failed], ['failed', 3]);
    const { lines } = await jobResults(app.url, submitted.body.id);
    for (const l of lines) {
      assert.equal(l.error?.code, 'CONFLICT');
      assert.match(String(l.error?.detail), new RegExp(TINY));
    }
    assert.equal(await count(app.url, 'jobs'), before);
  });
});

describe('kill -9 mid-job, then a restart on the same data directory', () => {
  let dataDir: string;
  let server: ChildServer | undefined;
  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'chunkd-jobstore-'));
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('every document is in the store exactly once', async () => {
    const flags = ['--data-dir', dataDir, '--workers', '0', '--job-batch-size', '5'];
    server = await startChild(flags);
    const docs = corpus(120, 3);
    const submitted = await submitJob(server.url, { steps: steps('killed'), documents: docs });
    assert.equal(submitted.status, 202);
    const id = submitted.body.id as string;
    // Killed once some of its documents are done and before all are: mid-job.
    const seen = await waitForJob(server.url, id, (j) => j.documents.done >= 10 || j.status === 'done', 20);
    await server.stop('SIGKILL');
    server = await startChild(flags);
    const done = await waitForJob(server.url, id);
    assert.equal(done.documents.done, 120);
    const { lines } = await jobResults(server.url, id);
    assert.equal(lines.length, 120);
    assert.equal(await count(server.url, 'killed'), chunksIn(lines), `rows = chunks of every document once (killed after ${seen.documents.done} done)`);
    assert.equal((await jobStatus(server.url, id)).body.documents.failed, 0);
  });
});

describe('the PostgreSQL job back-end', () => {
  // In a replica set (--database-url) a store on one replica's disk is refused writes, so the store
  // here is one every replica would reach: the dropped-in memory handshake (test/helpers/memory-handshake.ts).
  let postgres: TestPostgres;
  let app: TestApp;
  before(async () => {
    postgres = await startPostgres();
    app = await startApp({
      'database-url': await postgres.createDatabase(),
      'job-batch-size': '6',
      'plugins-dir': memoryHandshakeDir(),
      stores: JSON.stringify([
        { name: 'shared', handshake: 'memory', space: 'pg-jobs' },
        { name: 'disk', handshake: 'lancedb', path: mkdtempSync(join(tmpdir(), 'chunkd-disk-')) },
      ]),
    });
  });
  after(async () => {
    await app?.close();
    await postgres?.close();
  });

  test('a job with a write step fills the store once; its rerun replaces', async () => {
    const docs = corpus(20);
    const write = [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
      { type: 'write', store: 'shared', config: { collection: 'pg' } },
    ];
    const submitted = await submitJob(app.url, { steps: write, documents: docs });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const done = await waitForJob(app.url, submitted.body.id);
    assert.deepEqual([done.status, done.documents.done], ['done', 20]);
    const { lines } = await jobResults(app.url, submitted.body.id);
    assert.equal(await count(app.url, 'pg', 'shared'), chunksIn(lines));
    const again = await submitJob(app.url, { steps: write, documents: docs });
    await waitForJob(app.url, again.body.id);
    assert.equal(await count(app.url, 'pg', 'shared'), chunksIn(lines));
  });

  test('the local store is refused in a replica set: the submit answers the 409 naming --stores, nothing is queued', async () => {
    const local = [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
      { type: 'write', store: 'disk', config: { collection: 'local' } },
    ];
    const submitted = await submitJob(app.url, { steps: local, documents: corpus(2) });
    assert.equal(submitted.status, 409, JSON.stringify(submitted.body));
    assert.match(String(submitted.body.detail), /--stores/);
  });
});
