import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { startChild, type ChildServer } from './helpers/child.js';
import { gatePluginDir } from './helpers/gate-plugin.js';
import { assertBadIdsRefused, corpus, jobResults, jobStatus, submitJob, TOKEN_STEPS, waitForJob } from './helpers/jobs.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

/**
 * Real `chunkd serve` processes sharing one PostgreSQL: every replica consumes the job queue. The
 * batch expiry is short (3 s) so a killed replica's batch is retried within seconds.
 */
describe('jobs over replicas sharing PostgreSQL', () => {
  let postgres: TestPostgres;
  let url: string;
  let db: pg.Client;
  const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-jobs-replicas-'));
  const replicas: ChildServer[] = [];
  const gate = gatePluginDir();
  // Every replica logs the batches it claims and stores (debug): the tests wait on those lines, not on time.
  const start = (name: string, ...flags: string[]) =>
    startChild([
      '--database-url',
      url,
      '--data-dir',
      join(dataDir, name),
      '--workers',
      '1',
      '--job-batch-size',
      '20',
      '--job-batch-expiry-s',
      '3',
      '--plugins-dir',
      gate,
      '--log-level',
      'debug',
      ...flags,
    ]);

  before(async () => {
    postgres = await startPostgres({ own: true }); // a test stops it
    url = await postgres.createDatabase();
    replicas.push(await start('a')); // creates the tables and the queue; the others find them
    replicas.push(...(await Promise.all([start('b'), start('c')])));
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await db?.end().catch(() => {});
    await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
    await postgres?.close();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(gate, { recursive: true, force: true });
  });

  const replicaOf = (r: ChildServer) => `:${r.child.pid}`;
  /** The batches of a job that a replica has logged as claimed, and those it has logged as stored. */
  function batchesOf(r: ChildServer, jobId: string): { claimed: string[]; stored: Set<string> } {
    const entries = r
      .log()
      .split('\n')
      .filter((l) => l.startsWith('{') && l.includes('"job batch '))
      .map((l) => JSON.parse(l) as { msg: string; batch: string; job_id?: string });
    return {
      claimed: entries.filter((e) => e.msg === 'job batch claimed' && e.job_id === jobId).map((e) => e.batch),
      stored: new Set(entries.filter((e) => e.msg === 'job batch stored').map((e) => e.batch)),
    };
  }
  async function byReplica(jobId: string): Promise<Map<string, number>> {
    const { rows } = await db.query<{ replica: string; n: string }>(
      'SELECT replica, count(*) AS n FROM chunkd_job_results WHERE job_id = $1 GROUP BY replica',
      [jobId],
    );
    return new Map(rows.map((r) => [r.replica.slice(r.replica.lastIndexOf(':')), Number(r.n)]));
  }
  async function assertExactlyOnce(server: ChildServer, jobId: string, docs: { id: string }[]) {
    const { lines } = await jobResults(server.url, jobId);
    assert.equal(lines.length, docs.length);
    assert.deepEqual(
      lines.map((l) => l.index),
      docs.map((_, i) => i),
    );
    assert.deepEqual(
      lines.map((l) => l.document_id),
      docs.map((d) => d.id),
    );
    assert.ok(lines.every((l) => l.chunks && l.chunks.length > 0));
    const { rows } = await db.query<{ n: string }>('SELECT count(*) AS n FROM chunkd_job_results WHERE job_id = $1', [jobId]);
    assert.equal(Number(rows[0]!.n), docs.length);
    return lines;
  }

  test('a 2,000-document job submitted to A is run by all three replicas, every result once and in order', async () => {
    const [a, b, c] = replicas as [ChildServer, ChildServer, ChildServer];
    const docs = corpus(2000, 3);
    const sub = await submitJob(a.url, { steps: TOKEN_STEPS, documents: docs });
    assert.equal(sub.status, 202);
    const job = await waitForJob(b.url, sub.body.id); // any replica answers for any job
    assert.equal(job.status, 'done');
    assert.deepEqual(job.documents, { total: 2000, done: 2000, failed: 0 });
    const lines = await assertExactlyOnce(c, sub.body.id, docs);
    const direct = await fetch(`${a.url}/v1/chunk/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: docs.map((d) => d.text), ...TOKEN_STEPS[0]!.config }),
    });
    assert.deepEqual(
      lines.map((l) => l.chunks),
      await direct.json(),
    );
  });

  test('every replica consumes: batches held open until each replica has claimed one', async () => {
    const [a, b, c] = replicas as [ChildServer, ChildServer, ChildServer];
    // Gate documents wait for a release file: claimed batches stay open, so the first replica
    // cannot run the whole job before the others poll, however fast the machine.
    const markers = mkdtempSync(join(tmpdir(), 'chunkd-gate-markers-'));
    try {
      const docs = Array.from({ length: 400 }, (_, i) => ({ id: `g${i}`, text: `wait ${i}` }));
      const sub = await submitJob(a.url, { steps: [{ type: 'chunk', chunker: 'gate', config: { marker_dir: markers } }], documents: docs });
      assert.equal(sub.status, 202, JSON.stringify(sub.body));
      while (![a, b, c].every((r) => batchesOf(r, sub.body.id).claimed.length > 0)) await new Promise((r) => setTimeout(r, 50));
      writeFileSync(join(markers, 'release'), '');
      const job = await waitForJob(b.url, sub.body.id);
      assert.deepEqual(job.documents, { total: 400, done: 400, failed: 0 });
      await assertExactlyOnce(c, sub.body.id, docs);
      const counts = await byReplica(sub.body.id);
      for (const r of [a, b, c])
        assert.ok((counts.get(replicaOf(r)) ?? 0) > 0, `replica ${replicaOf(r)} ran none of the documents: ${JSON.stringify([...counts])}`);
    } finally {
      rmSync(markers, { recursive: true, force: true });
    }
  });

  test('a plugin bug fails its document with INTERNAL; the job finishes', async () => {
    const [a, b] = replicas as [ChildServer, ChildServer];
    const docs = [
      { id: 'x', text: 'fine' },
      { id: 'y', text: 'BUG' },
      { id: 'z', text: 'fine too' },
    ];
    const sub = await submitJob(a.url, { steps: [{ type: 'chunk', chunker: 'gate' }], documents: docs });
    assert.equal(sub.status, 202, JSON.stringify(sub.body));
    const job = await waitForJob(b.url, sub.body.id);
    assert.deepEqual([job.status, job.documents], ['done', { total: 3, done: 2, failed: 1 }]);
    const { lines } = await jobResults(a.url, sub.body.id);
    assert.deepEqual(
      lines.map((l) => [l.document_id, l.error?.code]),
      [
        ['x', undefined],
        ['y', 'INTERNAL'],
        ['z', undefined],
      ],
    );
  });

  test('a batch that fails on every retry is given up: its documents fail with INTERNAL and the job finishes', async () => {
    const [a, b] = replicas as [ChildServer, ChildServer];
    const markers = mkdtempSync(join(tmpdir(), 'chunkd-gate-markers-'));
    try {
      const docs = Array.from({ length: 200 }, (_, i) => ({ id: `r${i}`, text: `wait ${i}` }));
      const sub = await submitJob(a.url, { steps: [{ type: 'chunk', chunker: 'gate', config: { marker_dir: markers } }], documents: docs });
      assert.equal(sub.status, 202, JSON.stringify(sub.body));
      // Steps no run can read: every batch not yet under way fails, run after run (batches already held finish).
      await db.query("UPDATE chunkd_jobs SET steps = 'not json' WHERE id = $1", [sub.body.id]);
      writeFileSync(join(markers, 'release'), '');
      const job = await waitForJob(b.url, sub.body.id);
      assert.equal(job.documents.done + job.documents.failed, 200);
      assert.ok(job.documents.failed > 0, JSON.stringify(job.documents));
      const { lines } = await jobResults(a.url, sub.body.id);
      assert.deepEqual(
        lines.map((l) => l.index),
        docs.map((_, i) => i),
      );
      assert.ok(
        lines.every((l) => l.chunks || l.error?.code === 'INTERNAL'),
        'every document has its result or an INTERNAL line',
      );
    } finally {
      rmSync(markers, { recursive: true, force: true });
    }
  });

  test('/ready asks the job queue too: 200 while it answers', async () => {
    for (const r of replicas.filter((x) => x.child.exitCode === null)) assert.equal((await fetch(`${r.url}/ready`)).status, 200);
  });

  test('ids and numbers PostgreSQL cannot hold: the 4xx SQLite gives, never a 500', async () => {
    await assertBadIdsRefused((replicas as ChildServer[])[0]!.url);
  });

  test('kill -9 of a replica mid-batch: its batch is retried elsewhere, nothing lost or duplicated', async () => {
    const [a, b, c] = replicas as [ChildServer, ChildServer, ChildServer];
    // Gate documents wait for a release file: every claimed batch stays open, so once C has claimed
    // one it cannot finish it before it is killed, and the batch must be retried by A or B.
    const markers = mkdtempSync(join(tmpdir(), 'chunkd-gate-markers-'));
    try {
      const docs = Array.from({ length: 400 }, (_, i) => ({ id: `k${i}`, text: `wait ${i}` }));
      const sub = await submitJob(a.url, { steps: [{ type: 'chunk', chunker: 'gate', config: { marker_dir: markers } }], documents: docs });
      assert.equal(sub.status, 202, JSON.stringify(sub.body));
      // A and B hold their batches open too, so the queue's other batches wait for C to claim one.
      let held: string | undefined;
      while (!(held = batchesOf(c, sub.body.id).claimed[0])) await new Promise((r) => setTimeout(r, 20));
      await c.stop('SIGKILL');
      writeFileSync(join(markers, 'release'), '');
      const job = await waitForJob(a.url, sub.body.id);
      assert.deepEqual(job.documents, { total: 400, done: 400, failed: 0 });
      await assertExactlyOnce(b, sub.body.id, docs);
      const { rows } = await db.query<{ retry_count: number; state: string }>('SELECT retry_count, state FROM pgboss.job WHERE id = $1', [held]);
      assert.ok(rows[0]!.retry_count > 0, `the batch C held was not retried: ${JSON.stringify(rows)}`);
      assert.equal(rows[0]!.state, 'completed');
      assert.equal(batchesOf(c, sub.body.id).stored.has(held), false, 'C never stored the batch it held');
    } finally {
      rmSync(markers, { recursive: true, force: true });
    }
  });

  test(
    'PostgreSQL stopped mid-job: replicas answer 503 with the reason, and the job finishes once it is back',
    { skip: !process.env.CHUNKD_TEST_DATABASE_URL ? false : 'needs the embedded PostgreSQL' },
    async () => {
      const [a, b] = replicas as [ChildServer, ChildServer];
      const docs = corpus(2000, 3);
      const sub = await submitJob(a.url, { steps: TOKEN_STEPS, documents: docs });
      await waitForJob(a.url, sub.body.id, (j) => j.documents.done >= 100, 5);
      await db.end();
      await postgres.stop();
      try {
        for (const server of [a, b]) {
          assert.equal(server.child.exitCode, null, `the replica exited: ${server.log().slice(-3000)}`);
          // A hang would be a failure: the signal turns it into one instead of a stuck test.
          const status = await fetch(`${server.url}/v1/jobs/${sub.body.id}`, { signal: AbortSignal.timeout(20_000) });
          assert.equal(status.status, 503);
          const body = (await status.json()) as { code: string; detail: string };
          assert.equal(body.code, 'UNAVAILABLE');
          assert.match(body.detail, /unreachable \(/);
          assert.doesNotMatch(body.detail, /postgres:\/\/|password|user/i, 'the reason never shows the URL or a credential');
          assert.equal(status.headers.get('retry-after'), '5');
          assert.equal((await fetch(`${server.url}/ready`, { signal: AbortSignal.timeout(20_000) })).status, 503);
          const post = await fetch(`${server.url}/v1/jobs`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ steps: TOKEN_STEPS, documents: [{ text: 'a' }] }),
            signal: AbortSignal.timeout(20_000),
          });
          assert.equal(post.status, 503);
        }
      } finally {
        await postgres.start();
      }
      db = new pg.Client({ connectionString: url });
      await db.connect();
      const job = await waitForJob(b.url, sub.body.id);
      assert.deepEqual(job.documents, { total: 2000, done: 2000, failed: 0 });
      await assertExactlyOnce(a, sub.body.id, docs);
    },
  );
});
