/**
 * Replicas sharing one PostgreSQL: real `chunkd serve` processes on different ports, one database.
 * A pipeline made on one is seen, changed and run on the others; a name raced through every
 * replica is won once; a file uploaded through one is chunked through the others and outlives it;
 * kill -9 of a replica loses no acknowledged write; a database outage is a quick 503 with the
 * reason (liveness stays up) and service resumes when it is back.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { startChild, type ChildServer } from './helpers/child.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const STEPS = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16 } }];
let server: TestPostgres;
let url: string;
let replicas: ChildServer[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-replicas-'));

const start = () => startChild(['--database-url', url, '--data-dir', dataDir, '--workers', '0', '--log-level', 'info']);

before(async () => {
  server = await startPostgres({ own: true }); // a test stops it
  url = await server.createDatabase();
  // The first creates the schema; the others start together after it, as a scaled-up deployment does.
  replicas = [await start()];
  replicas.push(...(await Promise.all([start(), start()])));
});
after(async () => {
  await Promise.all(replicas.map((r) => r.stop('SIGKILL')));
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(base + path, {
    method,
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

test('a pipeline created on A is listed, updated and executed on B and C', async () => {
  const [a, b, c] = replicas.map((r) => r.url) as [string, string, string];
  const created = await call(a, 'POST', '/v1/pipelines', { name: 'shared', description: 'made on A', steps: STEPS });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id } = created.body;
  for (const other of [b, c]) {
    const list = await call(other, 'GET', '/v1/pipelines');
    assert.deepEqual(
      list.body.map((p: { id: string }) => p.id),
      [id],
    );
    assert.equal(list.headers.get('x-total-count'), '1');
  }
  const updated = await call(b, 'PUT', `/v1/pipelines/${id}`, { description: 'changed on B' });
  assert.equal(updated.status, 200);
  assert.deepEqual((await call(c, 'GET', `/v1/pipelines/${id}`)).body, updated.body, 'C sees B’s change');
  const text = 'One replica stores, any replica runs. '.repeat(20);
  const direct = await call(a, 'POST', '/v1/chunk/token', { text, chunk_size: 16 });
  for (const other of [b, c]) {
    const run = await call(other, 'POST', `/v1/pipelines/${id}/execute`, { text });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.deepEqual(run.body, direct.body, 'the stored steps ran');
  }
  assert.equal((await call(c, 'DELETE', `/v1/pipelines/${id}`)).status, 204);
  assert.equal((await call(a, 'GET', `/v1/pipelines/${id}`)).status, 404);
});

test('concurrent creates of one name through every replica: one 201, every other 409', async () => {
  const attempts = replicas.flatMap((r) => Array.from({ length: 4 }, () => call(r.url, 'POST', '/v1/pipelines', { name: 'raced', steps: STEPS })));
  const statuses = (await Promise.all(attempts)).map((r) => r.status);
  assert.deepEqual(statuses.filter((s) => s === 201).length, 1, String(statuses));
  assert.deepEqual(
    statuses.filter((s) => s !== 201),
    Array(statuses.length - 1).fill(409),
    String(statuses),
  );
  const named = (await call(replicas[1]!.url, 'GET', '/v1/pipelines?limit=100')).body.filter((p: { name: string }) => p.name === 'raced');
  assert.equal(named.length, 1);
});

test('a file uploaded through A (its own data folder) is chunked through B and C, and still read after A is killed with kill -9', async () => {
  const ownDir = mkdtempSync(join(tmpdir(), 'chunkd-replica-a-'));
  const a = await startChild(['--database-url', url, '--data-dir', ownDir, '--workers', '0']);
  try {
    const text = 'Uploaded once. Chunked anywhere. '.repeat(12);
    const form = new FormData();
    form.append('file', new Blob([text], { type: 'text/plain' }), 'shared.txt');
    const res = await fetch(`${a.url}/v1/files`, { method: 'POST', body: form });
    assert.equal(res.status, 201);
    const { name } = (await res.json()) as { name: string };
    const direct = await call(a.url, 'POST', '/v1/chunk/token', { text, chunk_size: 16 });
    for (const other of replicas.slice(0, 2)) {
      const byFile = await call(other.url, 'POST', '/v1/chunk/token', { file: { type: 'document', content: name }, chunk_size: 16 });
      assert.equal(byFile.status, 200, JSON.stringify(byFile.body));
      assert.deepEqual(
        byFile.body.map((c: { text: string }) => c.text),
        direct.body.map((c: { text: string }) => c.text),
      );
    }
    assert.equal(await a.stop('SIGKILL'), null, 'killed by a signal');
    assert.deepEqual((await call(replicas[0]!.url, 'GET', `/v1/files/${name}/text`)).body, { name, text }, 'A is gone; its file is not');
    assert.equal((await call(replicas[1]!.url, 'GET', `/v1/files/${name}`)).body.size, text.length);
    assert.deepEqual(
      (await call(replicas[2]!.url, 'GET', '/v1/files')).body.map((f: { name: string }) => f.name),
      [name],
      'listed on C',
    );
    const files = join(ownDir, 'files');
    assert.deepEqual(existsSync(files) ? readdirSync(files) : [], [], 'nothing of the file in A’s own folder: it lives in PostgreSQL');
    assert.equal((await call(replicas[2]!.url, 'DELETE', `/v1/files/${name}`)).status, 204);
    assert.equal((await call(replicas[0]!.url, 'GET', `/v1/files/${name}`)).status, 404, 'deleted through C: gone for B');
  } finally {
    await a.stop('SIGKILL');
    rmSync(ownDir, { recursive: true, force: true });
  }
});

test('kill -9 of a replica during writes on all three: every acknowledged write is stored, whole', async () => {
  const victim = replicas[2]!;
  const acked = new Map<string, string>(); // name → the description last acknowledged
  const unanswered = new Map<string, string>(); // name → an update sent but never answered (it may or may not have committed)
  let killed: Promise<number | null> | undefined;
  let inFlightOnVictim = 0;
  let inFlightAtKill = -1;
  const TARGET = 45;

  /** Creates pipelines on one replica, and updates each third one, until the victim dies (its own writer stops then). */
  async function writer(w: number, target: ChildServer): Promise<void> {
    for (let i = 0; ; i++) {
      // The victim's writers stop with it; the survivors' go on past the kill.
      if (killed && (target === victim || acked.size >= TARGET + 30)) return;
      const name = `k${w}-${i}`;
      if (target === victim) inFlightOnVictim++;
      try {
        const res = await call(target.url, 'POST', '/v1/pipelines', { name, description: 'created', steps: STEPS });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        acked.set(name, 'created');
        if (i % 3 === 0) {
          unanswered.set(name, `updated ${i}`);
          const up = await call(target.url, 'PUT', `/v1/pipelines/${res.body.id}`, { description: `updated ${i}` });
          assert.equal(up.status, 200, JSON.stringify(up.body));
          acked.set(name, `updated ${i}`);
          unanswered.delete(name);
        }
      } catch (e) {
        if (killed && target === victim) return; // the victim is gone: this request was in flight
        throw e;
      } finally {
        if (target === victim) inFlightOnVictim--;
      }
      if (acked.size >= TARGET && !killed) {
        inFlightAtKill = inFlightOnVictim;
        killed = victim.stop('SIGKILL');
      }
    }
  }

  await Promise.all(replicas.flatMap((r, k) => [writer(2 * k, r), writer(2 * k + 1, r)]));
  assert.equal(await killed, null, 'killed by a signal, not exited');
  assert.ok(inFlightAtKill > 0, 'writes were in flight on the victim when it was killed');
  replicas = replicas.slice(0, 2);

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; description: string; steps: unknown; size: number; bytes: number }>(
      `SELECT name, description, steps, size, octet_length(name) + coalesce(octet_length(description), 0) + octet_length(steps::text) AS bytes FROM pipelines WHERE name LIKE 'k%'`,
    );
    const stored = new Map(rows.map((r) => [r.name, r]));
    const missing = [...acked.keys()].filter((name) => !stored.has(name));
    assert.deepEqual(missing, [], `${acked.size} acknowledged, ${rows.length} stored`);
    for (const [name, description] of acked) {
      const options = [description, unanswered.get(name)].filter(Boolean);
      assert.ok(options.includes(stored.get(name)!.description), `${name}: ${stored.get(name)!.description}, not the last acknowledged change (${options})`);
    }
    for (const r of rows) {
      const [step, ...rest] = r.steps as { type: string; chunker: string; config: { chunk_size: number } }[];
      assert.deepEqual([step!.type, step!.chunker, step!.config.chunk_size, rest.length], ['chunk', 'token', 16, 0], `${r.name}: whole steps`);
      assert.equal(r.size, Number(r.bytes), `${r.name}: its size column matches its row`);
    }
  } finally {
    await client.end();
  }
  // The survivors still serve the lot.
  assert.equal(
    (await call(replicas[0]!.url, 'GET', '/v1/pipelines?limit=1')).headers.get('x-total-count'),
    String((await call(replicas[1]!.url, 'GET', '/v1/pipelines?limit=1')).headers.get('x-total-count')),
  );
});

test(
  'PostgreSQL stopped: /ready and the pipeline routes answer 503 with the reason, /health 200; all recover after it starts',
  { skip: process.env.CHUNKD_TEST_DATABASE_URL ? 'stopping PostgreSQL needs the embedded one' : false },
  async (t) => {
    const a = replicas[0]!.url;
    const made = await call(a, 'POST', '/v1/pipelines', { name: 'before-outage', steps: STEPS });
    assert.equal(made.status, 201);
    await server.stop();
    try {
      const began = Date.now();
      const answers = {
        ready: await call(a, 'GET', '/ready'),
        list: await call(a, 'GET', '/v1/pipelines'),
        get: await call(a, 'GET', `/v1/pipelines/${made.body.id}`),
        create: await call(replicas[1]!.url, 'POST', '/v1/pipelines', { name: 'during-outage', steps: STEPS }),
        execute: await call(a, 'POST', `/v1/pipelines/${made.body.id}/execute`, { text: 'hello' }),
      };
      t.diagnostic(`five answers during the outage took ${Date.now() - began} ms`);
      for (const [what, res] of Object.entries(answers)) {
        assert.equal(res.status, 503, `${what}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'UNAVAILABLE');
        assert.match(
          res.body.detail,
          /The pipelines database is unreachable \((connection refused|connection lost|the server is shutting down or starting)\): retry in a moment/,
          what,
        );
        assert.doesNotMatch(res.body.detail, new RegExp(`${new URL(url).password}|${new URL(url).port}`), `${what}: no URL, no password`);
        assert.equal(res.headers.get('retry-after'), '5');
      }
      assert.deepEqual((await call(a, 'GET', '/health')).body, { status: 'ok' }, 'liveness is not the database');
      assert.equal((await call(a, 'POST', '/v1/chunk/token', { text: 'chunking needs no database' })).status, 200);
    } finally {
      await server.start();
    }
    // Back: the pools make new connections on the next request. No clock: a few tries while it finishes starting.
    for (const r of replicas) {
      let ready = await call(r.url, 'GET', '/ready');
      for (let i = 0; ready.status !== 200 && i < 20; i++) {
        await new Promise((done) => setTimeout(done, 250));
        ready = await call(r.url, 'GET', '/ready');
      }
      assert.deepEqual(ready.body, { status: 'ready' });
    }
    assert.equal((await call(replicas[1]!.url, 'POST', '/v1/pipelines', { name: 'after-outage', steps: STEPS })).status, 201);
    assert.equal((await call(a, 'POST', `/v1/pipelines/${made.body.id}/execute`, { text: 'hello again' })).status, 200);
  },
);
