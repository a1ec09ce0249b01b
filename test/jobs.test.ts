import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { gatePluginDir } from './helpers/gate-plugin.js';
import { assertBadIdsRefused, corpus, jobResults, jobStatus, submitJob, TOKEN_STEPS, waitForJob } from './helpers/jobs.js';
import { sliceIn } from './helpers/units.js';
import type { JobStore } from '../service/jobs/store.js';

/** Jobs on the default back-end: SQLite, run in this process. */
describe('jobs (SQLite, in-process)', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({ 'max-text-chars': '2000', 'max-job-documents': '3000', 'job-batch-size': '8' });
  });
  after(() => app.close());

  test('a job with inline steps: every document once, in input order, the chunks a direct chunk call gives, offsets exact', async () => {
    const docs = corpus(60);
    const sub = await submitJob(app.url, { steps: TOKEN_STEPS, documents: docs });
    assert.equal(sub.status, 202);
    assert.equal(sub.body.status, 'queued');
    const job = await waitForJob(app.url, sub.body.id);
    assert.equal(job.status, 'done');
    assert.deepEqual(job.documents, { total: 60, done: 60, failed: 0 });
    assert.ok(job.started_at && job.finished_at && job.expires_at && job.created_at <= job.started_at && job.started_at <= job.finished_at);
    const { lines, headers } = await jobResults(app.url, sub.body.id);
    assert.equal(headers.get('content-type'), 'application/x-ndjson');
    assert.equal(headers.get('x-job-status'), 'done');
    assert.deepEqual(
      lines.map((l) => l.index),
      docs.map((_, i) => i),
    );
    assert.deepEqual(
      lines.map((l) => l.document_id),
      docs.map((d) => d.id),
    );
    const direct = await app.post('/v1/chunk/token', { text: docs.map((d) => d.text), ...TOKEN_STEPS[0]!.config });
    assert.deepEqual(
      lines.map((l) => l.chunks),
      direct.body,
    );
    for (const [i, l] of lines.entries()) for (const c of l.chunks!) assert.equal(sliceIn(docs[i]!.text, c.start_index, c.end_index, 'codepoint'), c.text);
  });

  test('pipeline_id and an NDJSON body; the results resume from a cursor and page with limit', async () => {
    const created = await app.post('/v1/pipelines', { name: 'jobs-ndjson', steps: [{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 32 } }] });
    assert.equal(created.status, 201);
    const docs = corpus(25);
    const body = [JSON.stringify({ pipeline_id: created.body.id, offset_unit: 'utf16' }), ...docs.map((d) => JSON.stringify(d)), ''].join('\n');
    const sub = await submitJob(app.url, body, { 'content-type': 'application/x-ndjson' });
    assert.equal(sub.status, 202, JSON.stringify(sub.body));
    const job = await waitForJob(app.url, sub.body.id);
    assert.equal(job.pipeline_id, created.body.id);
    const direct = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: docs.map((d) => d.text), offset_unit: 'utf16' });
    const all = await jobResults(app.url, sub.body.id);
    assert.deepEqual(
      all.lines.map((l) => l.chunks),
      direct.body,
    );
    const rest = await jobResults(app.url, sub.body.id, '?after=9');
    assert.deepEqual(rest.lines, all.lines.slice(10));
    const page = await jobResults(app.url, sub.body.id, '?after=-1&limit=4');
    assert.deepEqual(page.lines, all.lines.slice(0, 4));
    assert.equal((await jobResults(app.url, sub.body.id, '?after=-2')).status, 422);
  });

  test('a document that fails fails alone, with its reason in the status and its result line; all failing → failed', async () => {
    const docs = [
      { id: 'ok', text: 'short text.' },
      { id: 'long', text: 'x'.repeat(2001) },
      { id: 'ok2', text: 'another one.' },
    ];
    const sub = await submitJob(app.url, { steps: TOKEN_STEPS, documents: docs });
    const job = await waitForJob(app.url, sub.body.id);
    assert.equal(job.status, 'done');
    assert.deepEqual(job.documents, { total: 3, done: 2, failed: 1 });
    assert.equal(job.failures.length, 1);
    assert.equal(job.failures[0].index, 1);
    assert.equal(job.failures[0].document_id, 'long');
    assert.equal(job.failures[0].error.code, 'TOO_LARGE');
    const { lines } = await jobResults(app.url, sub.body.id);
    assert.deepEqual(
      lines.map((l) => [l.index, Boolean(l.chunks), l.error?.code]),
      [
        [0, true, undefined],
        [1, false, 'TOO_LARGE'],
        [2, true, undefined],
      ],
    );

    const bad = await submitJob(app.url, { steps: TOKEN_STEPS, documents: [{ text: 'y'.repeat(2001) }] });
    const failed = await waitForJob(app.url, bad.body.id);
    assert.equal(failed.status, 'failed');
    assert.equal(failed.failures[0].document_id, '0'); // no id: its index
  });

  test('a plugin bug fails its document with INTERNAL, the others run and the job finishes', { timeout: 120_000 }, async () => {
    for (const workers of ['0', '1']) {
      const buggy = await startApp({ 'plugins-dir': gatePluginDir(), workers, 'job-batch-size': '4' });
      try {
        const docs = [
          { id: 'a', text: 'fine' },
          { id: 'b', text: 'BUG' },
          { id: 'c', text: 'also fine' },
        ];
        const sub = await submitJob(buggy.url, { steps: [{ type: 'chunk', chunker: 'gate' }], documents: docs });
        assert.equal(sub.status, 202, JSON.stringify(sub.body));
        const job = await waitForJob(buggy.url, sub.body.id);
        assert.equal(job.status, 'done');
        assert.deepEqual(job.documents, { total: 3, done: 2, failed: 1 });
        const { lines } = await jobResults(buggy.url, sub.body.id);
        assert.deepEqual(
          lines.map((l) => [l.document_id, l.error?.code]),
          [
            ['a', undefined],
            ['b', 'INTERNAL'],
            ['c', undefined],
          ],
        );
        assert.doesNotMatch(JSON.stringify(lines[1]), /gate plugin has a bug/, 'nothing internal on the wire');
      } finally {
        await buggy.close();
      }
    }
  });

  test('a results page is cut by its bytes (one line at least), and the answer still streams every line in order', async () => {
    const docs = corpus(30, 20);
    const sub = await submitJob(app.url, { steps: TOKEN_STEPS, documents: docs });
    await waitForJob(app.url, sub.body.id);
    const store = app.booted.deps.services.jobs;
    const all = await store.results(sub.body.id, -1, 500, Infinity);
    assert.equal(all.length, 30);
    const bytes = (i: number) => Buffer.byteLength(all[i]!.line);
    assert.deepEqual(
      (await store.results(sub.body.id, -1, 500, 1)).map((l) => l.index),
      [0],
      'a line larger than the budget still goes, alone',
    );
    assert.deepEqual(
      (await store.results(sub.body.id, -1, 500, bytes(0) + bytes(1))).map((l) => l.index),
      [0, 1],
    );
    assert.deepEqual(
      (await store.results(sub.body.id, 4, 500, bytes(5) + bytes(6) + bytes(7) - 1)).map((l) => l.index),
      [5, 6],
    );
    const { lines } = await jobResults(app.url, sub.body.id);
    assert.deepEqual(
      lines.map((l) => l.index),
      docs.map((_, i) => i),
    );
  });

  test('bad submissions are refused before anything is stored, each with what to do', async () => {
    const both = await submitJob(app.url, { pipeline_id: 'x', steps: TOKEN_STEPS, documents: [] });
    assert.equal(both.status, 422);
    assert.match(JSON.stringify(both.body.detail), /either pipeline_id/);
    const neither = await submitJob(app.url, { documents: [] });
    assert.equal(neither.status, 422);
    const badStep = await submitJob(app.url, { steps: [{ type: 'chunk', chunker: 'tokn' }], documents: [{ text: 'a' }] });
    assert.equal(badStep.status, 422);
    assert.deepEqual(badStep.body.detail[0].loc, ['body', 'steps', 0, 'chunker']);
    const overlap = await submitJob(app.url, {
      steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 4, chunk_overlap: 4 } }],
      documents: [{ text: 'a' }],
    });
    assert.equal(overlap.status, 422);
    const missing = await submitJob(app.url, { pipeline_id: 'no-such-pipeline', documents: [{ text: 'a' }] });
    assert.equal(missing.status, 404);
    const noText = await submitJob(app.url, { steps: TOKEN_STEPS, documents: [{ id: 'a' }] });
    assert.equal(noText.status, 422);
    assert.deepEqual(noText.body.detail[0].loc, ['body', 'documents', 0, 'text']);
    const tooMany = await submitJob(app.url, { steps: TOKEN_STEPS, documents: corpus(3001) });
    assert.equal(tooMany.status, 413);
    assert.match(tooMany.body.detail, /--max-job-documents/);
    const surrogate = await submitJob(app.url, { steps: TOKEN_STEPS, documents: [{ text: 'a\ud800b' }] });
    assert.equal(surrogate.status, 422);
    const ndjson = [JSON.stringify({ steps: TOKEN_STEPS }), '{"text": "fine"}', '{"text": 5}', 'not json', ''].join('\n');
    const badLines = await submitJob(app.url, ndjson, { 'content-type': 'application/x-ndjson' });
    assert.equal(badLines.status, 422);
    assert.deepEqual(
      badLines.body.detail.map((i: { loc: unknown[] }) => i.loc.slice(0, 2)),
      [
        ['body', 3],
        ['body', 4],
      ],
    );
    const empty = await submitJob(app.url, '', { 'content-type': 'application/x-ndjson' });
    assert.equal(empty.status, 422);
    assert.equal((await jobStatus(app.url, 'no-such-job')).status, 404);
    assert.equal((await jobResults(app.url, 'no-such-job')).status, 404);
  });

  test('ids and numbers PostgreSQL cannot hold: the same 4xx on SQLite', async () => {
    await assertBadIdsRefused(app.url);
  });

  test('/ready asks the job store too', async () => {
    assert.equal((await app.request('GET', '/ready')).status, 200);
  });

  test('cancel: queued documents are dropped, results so far kept, the status stays cancelled', async () => {
    const slow = await startApp({ 'job-batch-size': '1' });
    try {
      const sub = await submitJob(slow.url, { steps: TOKEN_STEPS, documents: corpus(1500) });
      const del = await slow.request('DELETE', `/v1/jobs/${sub.body.id}`);
      assert.equal(del.status, 200);
      assert.equal(del.body.status, 'cancelled');
      assert.ok(del.body.documents.done < 1500);
      await new Promise((r) => setTimeout(r, 200)); // a batch in flight may still store its result
      const job = (await jobStatus(slow.url, sub.body.id)).body;
      assert.equal(job.status, 'cancelled');
      assert.ok(job.documents.done < 1500);
      const { lines } = await jobResults(slow.url, sub.body.id);
      // A batch in flight may store between the two reads: never fewer lines than counted, never a gap.
      assert.ok(lines.length >= job.documents.done);
      assert.deepEqual(
        lines.map((l) => l.index),
        lines.map((_, i) => i),
      );
      assert.equal((await slow.request('DELETE', '/v1/jobs/nope')).status, 404);
    } finally {
      await slow.close();
    }
  });

  test('submits while a job stores its batches: every write in its own transaction, no batch lost', { timeout: 300_000 }, async () => {
    const busy = await startApp({ 'job-batch-size': '4' });
    try {
      const big = await submitJob(busy.url, { steps: TOKEN_STEPS, documents: corpus(400) });
      const small = await Promise.all(Array.from({ length: 40 }, () => submitJob(busy.url, { steps: TOKEN_STEPS, documents: corpus(2) })));
      assert.deepEqual(
        small.map((s) => s.status),
        small.map(() => 202),
      );
      const job = await waitForJob(busy.url, big.body.id);
      assert.deepEqual(job.documents, { total: 400, done: 400, failed: 0 });
      for (const s of small) assert.deepEqual((await waitForJob(busy.url, s.body.id)).documents, { total: 2, done: 2, failed: 0 });
      const { lines } = await jobResults(busy.url, big.body.id);
      assert.deepEqual(
        lines.map((l) => l.index),
        Array.from({ length: 400 }, (_, i) => i),
      );
    } finally {
      await busy.close();
    }
  });

  test('results expire after --job-result-ttl-s', async () => {
    const short = await startApp({ 'job-result-ttl-s': '1' });
    try {
      const sub = await submitJob(short.url, { steps: TOKEN_STEPS, documents: corpus(3) });
      const job = await waitForJob(short.url, sub.body.id);
      assert.equal(job.status, 'done');
      await new Promise((r) => setTimeout(r, Date.parse(job.expires_at) - Date.now() + 50));
      assert.equal((await jobStatus(short.url, sub.body.id)).status, 404);
      assert.equal((await jobResults(short.url, sub.body.id)).status, 404);
    } finally {
      await short.close();
    }
  });

  test('a job interrupted by a restart resumes: every document once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-jobs-'));
    try {
      const first = await startApp({ 'data-dir': dataDir, 'job-batch-size': '2' });
      const sub = await submitJob(first.url, { steps: TOKEN_STEPS, documents: corpus(400) });
      await waitForJob(first.url, sub.body.id, (j) => j.documents.done > 0, 5);
      await first.close(); // the server stops mid-job
      const second = await startApp({ 'data-dir': dataDir });
      try {
        const job = await waitForJob(second.url, sub.body.id);
        assert.deepEqual(job.documents, { total: 400, done: 400, failed: 0 });
        const { lines } = await jobResults(second.url, sub.body.id);
        assert.deepEqual(
          lines.map((l) => l.index),
          Array.from({ length: 400 }, (_, i) => i),
        );
      } finally {
        await second.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
