/**
 * One store never holds up another, and a job to a store that does not take its writes ends
 * (issue: reliability round five, items 2 and 3). Beside a healthy store: a PostgreSQL URL whose
 * server accepts TCP connections and never answers (a hanging store), one whose port refuses
 * connections (a store that is down), and a dropped-in handshake whose writes always fail, the same
 * way or a new way each time. On both job back-ends (SQLite in-process; PostgreSQL + pg-boss).
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startApp, type TestApp } from './helpers/app.js';
import { faultyCalls, faultyHandshakeDir } from './helpers/faulty-handshake.js';
import { corpus, jobResults, submitJob, waitForJob } from './helpers/jobs.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

const write = (store: string, collection: string) => [
  { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
  { type: 'write', store, config: { collection } },
];

for (const backend of ['sqlite', 'postgresql'] as const) {
  describe(`stores that hang, are down or fail (${backend} jobs)`, () => {
    let app: TestApp;
    let postgres: TestPostgres | undefined;
    const sockets: Socket[] = [];
    const hang = createServer((s) => void sockets.push(s)); // accepts, never answers
    let refusedPort = 0;
    const healthy = backend === 'sqlite' ? 'default' : 'shared';
    const tag = (mode: string) => `${backend}-${mode}`;

    before(async () => {
      const hangPort = await listen(hang);
      const closed = createServer();
      refusedPort = await listen(closed);
      await new Promise((r) => closed.close(r));
      const plugins = faultyHandshakeDir(memoryHandshakeDir());
      const pg = (port: number) => ({ handshake: 'pgvector', url: `postgres://chunkd:secret-pw@127.0.0.1:${port}/db`, connect_timeout_ms: 500 });
      const stores = [
        backend === 'sqlite'
          ? { name: 'default', handshake: 'lancedb', path: mkdtempSync(join(tmpdir(), 'chunkd-iso-')) }
          : { name: 'shared', handshake: 'memory', space: 'isolation' },
        { name: 'hung', ...pg(hangPort) },
        // A refused connection fails at once: a longer connect timeout keeps a busy event loop from reading it as a timeout.
        { name: 'down', ...pg(refusedPort), connect_timeout_ms: 5000 },
        { name: 'same', handshake: 'faulty', tag: tag('same'), mode: 'same' },
        { name: 'varying', handshake: 'faulty', tag: tag('varying'), mode: 'varying' },
      ];
      let database = {};
      if (backend === 'postgresql') {
        postgres = await startPostgres();
        database = { 'database-url': await postgres.createDatabase() };
      }
      app = await startApp({
        ...database,
        'plugins-dir': plugins,
        stores: JSON.stringify(stores),
        'store-connect-timeout-ms': '3000',
        'job-store-wait-s': '4',
        'job-batch-size': '5',
        // Without the fix, a request waiting on the hanging store ends here as a 504.
        'request-timeout-ms': '30000',
      });
    });
    after(async () => {
      await app?.close();
      await postgres?.close();
      for (const s of sockets) s.destroy();
      hang.close();
    });

    test('GET /v1/stores answers, the hanging and the down store marked with error, the healthy one listed', async () => {
      const res = await app.request('GET', '/v1/stores');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const by = new Map((res.body as { name: string; error?: string }[]).map((s) => [s.name, s]));
      assert.equal(by.get(healthy)!.error, undefined);
      assert.match(String(by.get('hung')!.error), /'hung' \(pgvector\) could not be reached/);
      assert.match(String(by.get('down')!.error), /'down' \(pgvector\) could not be reached \(connection refused\)/);
      assert.doesNotMatch(JSON.stringify(res.body), /secret-pw|127\.0\.0\.1/);
    });

    test('a write to the healthy store is not held up by the hanging one', async () => {
      const created = await app.post('/v1/pipelines', { name: `iso-${backend}`, steps: write(healthy, 'iso') });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const run = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: 'The quick brown fox jumps over the lazy dog.', document: 'one' });
      assert.equal(run.status, 200, JSON.stringify(run.body));
      const hits = await app.post(`/v1/stores/${healthy}/search`, { collection: 'iso', query: 'fox', k: 3 });
      assert.equal(hits.status, 200, JSON.stringify(hits.body));
      assert.ok((hits.body as unknown[]).length > 0);
    });

    test('jobs to stores that hang or are down wait without holding up a job to the healthy store, then fail with the reason', async () => {
      const toHung = await submitJob(app.url, { steps: write('hung', 'c'), documents: corpus(3) });
      const toDown = await submitJob(app.url, { steps: write('down', 'c'), documents: corpus(3) });
      const toHealthy = await submitJob(app.url, { steps: write(healthy, 'jobs'), documents: corpus(12) });
      for (const s of [toHung, toDown, toHealthy]) assert.equal(s.status, 202, JSON.stringify(s.body));
      const done = await waitForJob(app.url, toHealthy.body.id);
      assert.deepEqual([done.status, done.documents.done], ['done', 12]);
      for (const [job, store] of [
        [toHung, 'hung'],
        [toDown, 'down'],
      ] as const) {
        const ended = await waitForJob(app.url, job.body.id);
        assert.deepEqual([ended.status, ended.documents.failed], ['failed', 3], JSON.stringify(ended));
        const { lines } = await jobResults(app.url, job.body.id);
        for (const l of lines) {
          assert.equal(l.error?.code, 'UNAVAILABLE');
          assert.match(String(l.error?.detail), new RegExp(`The store '${store}' did not take this document's write for \\d+ s .*--job-store-wait-s`));
          assert.doesNotMatch(String(l.error?.detail), /secret-pw/);
        }
      }
    });

    test('a store failing every write the same way: the documents fail after 3 tries, with its reason', async () => {
      const before = faultyCalls(tag('same'));
      const job = await submitJob(app.url, { steps: write('same', 'c'), documents: corpus(3) });
      assert.equal(job.status, 202, JSON.stringify(job.body));
      const ended = await waitForJob(app.url, job.body.id);
      assert.deepEqual([ended.status, ended.documents.failed], ['failed', 3]);
      const { lines } = await jobResults(app.url, job.body.id);
      for (const l of lines) {
        assert.equal(l.error?.code, 'UPSTREAM');
        assert.match(String(l.error?.detail), /failed this document's write the same way 3 times: column cannot have more than 16000 dimensions/);
      }
      assert.equal(faultyCalls(tag('same')) - before, 3, 'one batch, three tries');
    });

    test('DELETE /v1/jobs/{id} stops the retries at once', async () => {
      const job = await submitJob(app.url, { steps: write('varying', 'c'), documents: corpus(3) });
      assert.equal(job.status, 202, JSON.stringify(job.body));
      while (faultyCalls(tag('varying')) === 0) await sleep(50);
      const cancelled = await app.request('DELETE', `/v1/jobs/${job.body.id}`);
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.status, 'cancelled');
      const calls = faultyCalls(tag('varying'));
      // Past the next two pauses (1 s, 2 s) of its wait: no try after the cancel.
      await sleep(3500);
      assert.equal(faultyCalls(tag('varying')), calls, 'no write tried after the cancel');
      const view = await app.request('GET', `/v1/jobs/${job.body.id}`);
      assert.equal(view.body.status, 'cancelled');
    });
  });
}
