/**
 * Start-up with --database-url, as an orchestrator does it: replicas started together on an empty
 * database all come up (the schema, pg-boss's included, is created once under the migration
 * lock), and a replica whose database is not there yet waits for it (liveness 200, readiness 503
 * with the reason, 503 + Retry-After for what needs the database), then finishes booting.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startChild, type ChildServer } from './helpers/child.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

let server: TestPostgres;
const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-startup-'));
const children: ChildServer[] = [];
before(async () => (server = await startPostgres({ own: true }))); // tests stop it
after(async () => {
  await Promise.all(children.map((c) => c.stop('SIGKILL')));
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = async (url: string) => {
  const child = await startChild(['--database-url', url, '--data-dir', dataDir, '--workers', '0', '--log-level', 'info']);
  children.push(child);
  return child;
};

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

const pause = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** Asks until `check` holds, at most `tries` times a `every` ms apart (a bound on attempts, not a timed assertion). */
async function until(check: () => Promise<boolean> | boolean, tries = 240, every = 250): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return true;
    await pause(every);
  }
  return false;
}

const attempts = (log: string) => log.split('\n').filter((l) => l.includes('"database unreachable; retrying"'));

test('3 replicas started at once on an empty database, 6 times over: all 18 come up and are ready', async () => {
  const failures: string[] = [];
  /** One round: a new database, three replicas started together, each asked until ready. */
  async function round(k: number): Promise<void> {
    const url = await server.createDatabase();
    const started = await Promise.allSettled([start(url), start(url), start(url)]);
    for (const [i, s] of started.entries()) {
      if (s.status === 'rejected') {
        failures.push(`round ${k}, replica ${i}: ${String(s.reason).slice(0, 400)}`);
        continue;
      }
      const ready = await until(async () => (await call(s.value.url, 'GET', '/ready')).status === 200);
      if (!ready || s.value.child.exitCode !== null) failures.push(`round ${k}, replica ${i}: not ready; log: ${s.value.log().slice(-600)}`);
    }
    await Promise.all(started.map((s) => (s.status === 'fulfilled' ? s.value.stop() : null)));
  }
  // Two rounds at a time (each on its own database) to keep the run short; 6 rounds, 18 replicas.
  for (let k = 0; k < 6; k += 2) await Promise.all([round(k), round(k + 1)]);
  assert.deepEqual(failures, []);
});

test('a database out of reach at start: /health 200, /ready and database routes 503 with the reason and Retry-After, retried with a growing wait; once it answers, the replica finishes booting', async () => {
  const url = await server.createDatabase();
  const password = new URL(url).password;
  await server.stop();
  let child: ChildServer;
  try {
    child = await start(url);
    assert.ok(await until(() => attempts(child.log()).length >= 2), 'it keeps trying, logging each attempt');
    assert.equal(child.child.exitCode, null, 'still running');
    assert.deepEqual((await call(child.url, 'GET', '/health')).body, { status: 'ok' });
    const ready = await call(child.url, 'GET', '/ready');
    assert.equal(ready.status, 503);
    assert.match(
      ready.body.detail,
      /The database is not reachable yet \(connection refused\); this replica keeps trying to connect \(attempt \d+\): retry in a moment/,
    );
    for (const [method, path, body] of [
      ['POST', '/v1/pipelines', { name: 'early', steps: [{ type: 'chunk', chunker: 'token' }] }],
      ['GET', '/v1/pipelines', undefined],
      ['GET', '/v1/files/file_0123456789abcdef0123456789abcdef', undefined],
      ['POST', '/v1/chunk/token', { file: { type: 'document', content: 'file_0123456789abcdef0123456789abcdef' } }],
      ['GET', '/v1/jobs/00000000-0000-4000-8000-000000000000', undefined],
    ] as const) {
      const res = await call(child.url, method, path, body);
      assert.equal(res.status, 503, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, 'UNAVAILABLE');
      assert.equal(res.headers.get('retry-after'), '5');
    }
    assert.equal((await call(child.url, 'POST', '/v1/chunk/token', { text: 'Chunking needs no database.' })).status, 200);
    const lines = attempts(child.log()).map((l) => JSON.parse(l) as { attempt: number; reason: string; retry_in_ms: number });
    assert.deepEqual(
      lines.slice(0, 2).map((l) => [l.attempt, l.reason]),
      [
        [1, 'connection refused'],
        [2, 'connection refused'],
      ],
    );
    assert.ok(lines[1]!.retry_in_ms > lines[0]!.retry_in_ms, 'the wait grows');
    assert.doesNotMatch(child.log(), new RegExp(password), 'no password in the log');
    for (const l of attempts(child.log())) assert.doesNotMatch(l, /postgres:\/\/|127\.0\.0\.1/, 'no URL in an attempt line');
  } finally {
    await server.start();
  }
  assert.ok(await until(async () => (await call(child.url, 'GET', '/ready')).status === 200), 'ready once the database answers');
  // The log line travels through the child's stdout pipe, which may arrive after the HTTP answer.
  assert.ok(await until(() => /"database ready"/.test(child.log())), `"database ready" is logged; log: ${child.log().slice(-600)}`);
  const created = await call(child.url, 'POST', '/v1/pipelines', { name: 'late', steps: [{ type: 'chunk', chunker: 'token' }] });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const form = new FormData();
  form.append('file', new Blob(['Stored once the database answered.'], { type: 'text/plain' }), 'late.txt');
  const up = await fetch(`${child.url}/v1/files`, { method: 'POST', body: form });
  assert.equal(up.status, 201);
  const job = await call(child.url, 'POST', '/v1/jobs', { steps: [{ type: 'chunk', chunker: 'token' }], documents: [{ id: 'd0', text: 'One document.' }] });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  assert.ok(
    await until(async () => (await call(child.url, 'GET', `/v1/jobs/${job.body.id}`)).body.status === 'done'),
    'the job queue consumes once started late',
  );
  await child.stop();
});

test('an address where nothing listens: the replica keeps trying and never prints the password', async () => {
  const child = await start('postgres://chunkd:s3cret-pw@127.0.0.1:1/db');
  assert.ok(await until(() => attempts(child.log()).length >= 2));
  assert.equal(child.child.exitCode, null);
  assert.equal((await call(child.url, 'GET', '/ready')).status, 503);
  assert.doesNotMatch(child.log(), /s3cret-pw/);
  assert.equal(await child.stop(), 0, 'SIGTERM while waiting: a clean stop');
});

test('a database that answers late with a schema newer than this chunkd: the waiting replica stops with status 1 and says why', async () => {
  const url = await server.createDatabase();
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(
    'CREATE TABLE chunkd_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version))',
  );
  await client.query("INSERT INTO chunkd_migrations (component, version) VALUES ('pipelines', 999)");
  await client.end();
  await server.stop();
  let child: ChildServer;
  try {
    child = await start(url);
    assert.ok(await until(() => attempts(child.log()).length >= 1));
  } finally {
    await server.start();
  }
  const code = await new Promise<number | null>((done) => (child.child.exitCode !== null ? done(child.child.exitCode) : child.child.once('exit', done)));
  assert.equal(code, 1);
  assert.match(child.log(), /schema version 999, newer than this chunkd knows/);
});
