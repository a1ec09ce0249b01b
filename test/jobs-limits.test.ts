/**
 * Jobs under their limits, on both back-ends (SQLite in-process, and PostgreSQL): the body is
 * stored in batches as it arrives (judged by what the store received before the body ended), the
 * storage quota --max-jobs-bytes (507 at submit, never overshot by concurrent submits; a job whose
 * results would pass it fails with the reason), the per-document result cap at storage, and a
 * batch that fails on every run is given up. Judged by bytes stored and statuses, never by time.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { inline } from '../kernel/engine/index.js';
import { runBatch } from '../service/jobs/run.js';
import { resolveSettings } from '../service/settings.js';
import type { JobIntake, JobRun, JobStore } from '../service/jobs/store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { startChild } from './helpers/child.js';
import { jobResults, submitJob, TOKEN_STEPS, waitForJob } from './helpers/jobs.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const storeOf = (app: TestApp) => app.booted.deps.services.jobs;
const doc = (i: number, bytes: number) => ({ id: `d${i}`, text: `${'word '.repeat(Math.ceil(bytes / 5))}`.slice(0, bytes) });

/** Record every batch a store's intakes receive (documents and text bytes), by wrapping receive(). */
function recordBatches(store: JobStore): { batches: { docs: number; bytes: number }[] } {
  const seen = { batches: [] as { docs: number; bytes: number }[] };
  const receive = store.receive.bind(store);
  store.receive = async (id, createdAt) => {
    const intake: JobIntake = await receive(id, createdAt);
    const add = intake.add.bind(intake);
    return {
      ...intake,
      commit: intake.commit.bind(intake),
      abort: intake.abort.bind(intake),
      add: async (docs) => (seen.batches.push({ docs: docs.length, bytes: docs.reduce((n, d) => n + d.text.length, 0) }), add(docs)),
    };
  };
  return seen;
}

/** A plugins directory holding `interrupted`: a chunker whose every run fails as a stopping pool does (an AbortError). */
function interruptedPluginDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-interrupted-'));
  mkdirSync(join(dir, 'interrupted'));
  writeFileSync(
    join(dir, 'interrupted', 'index.mjs'),
    `export default { name: 'interrupted', kind: 'chunker', summary: 'Fails every run as an interruption.', extras: [],
      config: { type: 'object', properties: {} }, load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'interrupted', 'impl.mjs'),
    `export const create = () => ({ chunk() { const e = new Error('The operation was aborted'); e.name = 'AbortError'; throw e; } });`,
  );
  return dir;
}

/** Each back-end gives every app a store of its own (a fresh data directory, or a fresh database). */
const backends: [string, () => Promise<{ flags(): Promise<Record<string, string>>; close(): Promise<void> }>][] = [
  ['SQLite', async () => ({ flags: async () => ({}), close: async () => {} })],
  [
    'PostgreSQL',
    async () => {
      const pg: TestPostgres = await startPostgres();
      return { flags: async () => ({ 'database-url': await pg.createDatabase() }), close: () => pg.close() };
    },
  ],
];

for (const [name, backend] of backends) {
  describe(`jobs limits (${name})`, () => {
    let db: Awaited<ReturnType<typeof backend>>;
    const plugins = interruptedPluginDir();
    before(async () => (db = await backend()));
    after(async () => {
      await db?.close();
      rmSync(plugins, { recursive: true, force: true });
    });
    const start = async (flags: Record<string, string> = {}) => startApp({ ...(await db.flags()), 'plugins-dir': plugins, ...flags });

    test('steps are checked at submit as POST /v1/pipelines checks them: a number that overflows is the same 422, in a JSON or an NDJSON body', async () => {
      const app = await start();
      try {
        const steps = '[{"type": "chunk", "chunker": "token", "config": {"chunk_size": 1e999}}]';
        const post = (path: string, body: string, type = 'application/json') =>
          fetch(`${app.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body }).then(async (r) => ({
            status: r.status,
            body: (await r.json()) as any,
          }));
        const pipeline = await post('/v1/pipelines', `{"name": "overflow", "steps": ${steps}}`);
        assert.equal(pipeline.status, 422);
        assert.deepEqual(pipeline.body.detail[0].loc, ['body', 'steps', 0, 'config', 'chunk_size']);
        const json = await post('/v1/jobs', `{"steps": ${steps}, "documents": [{"id": "a", "text": "hello"}]}`);
        assert.deepEqual(json, pipeline);
        const ndjson = await post('/v1/jobs', `{"steps": ${steps}}\n{"id": "a", "text": "hello"}\n`, 'application/x-ndjson');
        assert.equal(ndjson.status, 422);
        assert.deepEqual(ndjson.body.detail[0].loc.slice(-4), ['steps', 0, 'config', 'chunk_size']);
        assert.equal(ndjson.body.detail[0].msg, pipeline.body.detail[0].msg);
      } finally {
        await app.close();
      }
    });

    test('a body is stored in batches while it arrives, never held whole', { timeout: 120_000 }, async () => {
      const app = await start();
      try {
        const seen = recordBatches(storeOf(app));
        // 3,000 documents of 4 KB (12 MB): the first part is sent, then the request waits until the store got some.
        const docs = Array.from({ length: 3000 }, (_, i) => JSON.stringify(doc(i, 4096)));
        const body = new PassThrough();
        const answer = new Promise<{ status: number; body: any }>((resolve, reject) => {
          const req = request(`${app.url}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
            let text = '';
            res.on('data', (b) => (text += b));
            res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
          });
          req.on('error', reject);
          body.pipe(req);
        });
        body.write(`{"steps": ${JSON.stringify(TOKEN_STEPS)}, "documents": [${docs.slice(0, 2000).join(',')}`);
        // Stored before the body ended (old behaviour: nothing until the whole body was read).
        while (seen.batches.length === 0) await new Promise((r) => setTimeout(r, 20));
        body.end(`,${docs.slice(2000).join(',')}]}`);
        const res = await answer;
        assert.equal(res.status, 202, JSON.stringify(res.body));
        assert.equal(
          seen.batches.reduce((n, b) => n + b.docs, 0),
          3000,
        );
        assert.ok(seen.batches.length >= 3, `${seen.batches.length} batches`);
        for (const b of seen.batches) assert.ok(b.bytes <= 4 * 1024 * 1024 + 4096, `a batch of ${b.bytes} bytes`);
        const job = await waitForJob(app.url, res.body.id);
        assert.deepEqual(job.documents, { total: 3000, done: 3000, failed: 0 });
      } finally {
        await app.close();
      }
    });

    test('a refused body leaves nothing stored, whenever it is refused', async () => {
      const app = await start();
      try {
        const docs = Array.from({ length: 1500 }, (_, i) => doc(i, 100));
        const bad = await submitJob(app.url, { steps: TOKEN_STEPS, documents: [...docs, { text: 5 }] });
        assert.equal(bad.status, 422);
        assert.deepEqual(bad.body.detail[0].loc, ['body', 'documents', 1500, 'text']);
        const unknown = await submitJob(app.url, { steps: [{ type: 'chunk', chunker: 'tokn' }], documents: docs });
        assert.equal(unknown.status, 422);
        const cut = await submitJob(app.url, `{"steps": ${JSON.stringify(TOKEN_STEPS)}, "documents": [${docs.map((d) => JSON.stringify(d)).join(',')}`);
        assert.equal(cut.status, 422);
        assert.equal(await storeOf(app).usage(), 0);
      } finally {
        await app.close();
      }
    });

    test('--max-jobs-bytes: a submit over it → 507 naming it; concurrent submits never pass it', async () => {
      const app = await start({ 'max-jobs-bytes': '10000' });
      try {
        const big = await submitJob(app.url, { steps: TOKEN_STEPS, documents: [doc(0, 10_001)] });
        assert.equal(big.status, 507, JSON.stringify(big.body));
        assert.equal(big.body.code, 'INSUFFICIENT_STORAGE');
        assert.match(big.body.detail, /--max-jobs-bytes/);
        assert.equal(await storeOf(app).usage(), 0, 'nothing of the refused job is kept');
        // Four jobs of 3,000 bytes at once: at most three fit, never four (each reservation is atomic).
        const four = await Promise.all(
          Array.from({ length: 4 }, (_, i) => submitJob(app.url, { steps: [{ type: 'chunk', chunker: 'interrupted' }], documents: [doc(i, 2998)] })),
        );
        const statuses = four.map((r) => r.status);
        assert.ok(
          statuses.every((s) => s === 202 || s === 507),
          JSON.stringify(statuses),
        );
        assert.ok(statuses.includes(507), JSON.stringify(statuses));
        assert.ok(statuses.filter((s) => s === 202).length >= 1);
        assert.ok((await storeOf(app).usage()) <= 10_000);
      } finally {
        await app.close();
      }
    });

    test('a job whose results would pass --max-jobs-bytes fails with that reason; the quota holds', { timeout: 120_000 }, async () => {
      const app = await start({ 'max-jobs-bytes': '60000' });
      try {
        // chunk_size 1: each token is a chunk of about 80 bytes of JSON; 2,000 bytes of text make far more than the quota.
        const steps = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1, chunk_overlap: 0 } }];
        const res = await submitJob(app.url, { steps, documents: Array.from({ length: 8 }, (_, i) => doc(i, 2000)) });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        const job = await waitForJob(app.url, res.body.id);
        assert.equal(job.status, 'failed');
        assert.equal(job.documents.done + job.documents.failed, 8);
        assert.equal(job.failures[0].error.code, 'INSUFFICIENT_STORAGE');
        assert.match(job.failures[0].error.detail, /--max-jobs-bytes/);
        const { lines } = await jobResults(app.url, res.body.id);
        assert.deepEqual(
          lines.map((l) => l.index),
          [0, 1, 2, 3, 4, 5, 6, 7],
          'every document has its line',
        );
        // The error lines are small and always stored; the results that would pass the quota never are.
        assert.ok((await storeOf(app).usage()) <= 60_000 + 8 * 1024, `${await storeOf(app).usage()} bytes stored`);
      } finally {
        await app.close();
      }
    });

    test('a result over --max-document-output-bytes is stored as its 413 error; the other documents run', async () => {
      const app = await start({ 'max-document-output-bytes': '4000' });
      try {
        const steps = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1, chunk_overlap: 0 } }];
        const res = await submitJob(app.url, {
          steps,
          documents: [
            { id: 'small', text: 'a b' },
            { id: 'big', text: 'word '.repeat(400) },
          ],
        });
        assert.equal(res.status, 202);
        const job = await waitForJob(app.url, res.body.id);
        assert.deepEqual(job.documents, { total: 2, done: 1, failed: 1 });
        const { lines } = await jobResults(app.url, res.body.id);
        assert.ok(lines[0]!.chunks!.length > 0);
        assert.equal(lines[1]!.document_id, 'big');
        assert.equal(lines[1]!.error!.code, 'TOO_LARGE');
        assert.match(String(lines[1]!.error!.detail), /--max-document-output-bytes/);
        assert.ok((await storeOf(app).usage()) < 4000 + 1000);
      } finally {
        await app.close();
      }
    });

    test('a batch that fails on every run is given up with the reason: the job finishes', { timeout: 120_000 }, async () => {
      const app = await start({ 'job-batch-size': '2' });
      try {
        const res = await submitJob(app.url, { steps: [{ type: 'chunk', chunker: 'interrupted' }], documents: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
        assert.equal(res.status, 202);
        const job = await waitForJob(app.url, res.body.id);
        assert.equal(job.status, 'failed');
        assert.deepEqual(job.documents, { total: 3, done: 0, failed: 3 });
        assert.match(job.failures[0].error.detail, /failed on each of \d+ runs/);
      } finally {
        await app.close();
      }
    });
  });
}

test('a job body over --max-job-bytes that never ends is cut off: the server stops reading at the limit', async () => {
  const app = await startApp({ 'max-job-bytes': String(64 * 1024) });
  try {
    let pulled = 0;
    let answered = false;
    const head = Buffer.from(`{"steps": ${JSON.stringify(TOKEN_STEPS)}, "documents": [{"text": "`);
    const piece = Buffer.alloc(65536, 'a');
    const body = new Readable({
      read() {
        if (answered || pulled > 256 * 1024 * 1024) return void this.push(null);
        const chunk = pulled === 0 ? head : piece;
        pulled += chunk.length;
        this.push(chunk);
      },
    });
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${app.url}/v1/jobs`, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        answered = true;
        res.resume();
        res.on('end', () => (req.destroy(), resolve(res.statusCode!)));
      });
      // The server closing mid-body may reach the client as EPIPE or ECONNRESET before the answer: the body was cut off all the same.
      req.on('error', (e: NodeJS.ErrnoException) => (answered ? undefined : e.code === 'EPIPE' || e.code === 'ECONNRESET' ? resolve(0) : reject(e)));
      body.pipe(req);
    });
    assert.ok(status === 413 || status === 0, String(status));
    assert.ok(pulled < 64 * 1024 + 32 * 1024 * 1024, `the server pulled ${pulled} bytes`);
  } finally {
    await app.close();
  }
});

test("a job's step that no longer fits when it runs: the failure says to submit the job again, never a PUT route that does not exist", async () => {
  const registry = await discover(); // has no chunker 'gone'
  const job: JobRun = { id: 'job-1', status: 'running', steps: [{ type: 'chunk', chunker: 'gone', config: {} }], offset_unit: 'codepoint' };
  const settings = resolveSettings({}, {});
  const [line] = await runBatch(job, [{ index: 0, id: 'a', text: 'hello' }], { registry, executor: inline, settings });
  const { error } = JSON.parse(line!.line) as { error: { code: string; detail: string } };
  assert.equal(error.code, 'BAD_REQUEST');
  assert.match(error.detail, /uses the chunker 'gone', which this server does not have: submit the job again with steps this server accepts \(POST \/v1\/jobs/);
  assert.doesNotMatch(error.detail, /PUT \/v1\/pipelines/);
});

test('a stop while the job consumer pauses after a failed batch ends the pause and finishes the close (SQLite)', async () => {
  const plugins = interruptedPluginDir();
  const server = await startChild(['--plugins-dir', plugins, '--workers', '0']);
  try {
    const res = await submitJob(server.url, { steps: [{ type: 'chunk', chunker: 'interrupted' }], documents: [{ text: 'a' }] });
    assert.equal(res.status, 202);
    while (!/job batch failed; retried/.test(server.log())) await new Promise((r) => setTimeout(r, 20));
    // Before: the pause was an unref'd timer alone and the close awaited it, so with the server closed the event
    // loop emptied and the process ended mid-close (exit 0, never "stopped": what close() had left to do was not done).
    assert.equal(await server.stop(), 0);
    assert.match(server.log(), /"msg":"stopped"/);
  } finally {
    await server.stop('SIGKILL');
    rmSync(plugins, { recursive: true, force: true });
  }
});
