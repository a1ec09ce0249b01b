/**
 * A replica set (pipelines and jobs in PostgreSQL, --database-url) refuses a write step to a store
 * on this replica's disk when the pipeline or job is made, with the 409 a run of it gets: never a
 * 201 or 202 followed by documents failing one by one. A store every replica reaches is accepted.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const LOCAL = /The store 'lance' is on this replica's disk/;
const chunk = { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } };
const toLocal = [chunk, { type: 'write', store: 'lance', config: { collection: 'docs' } }];
const toShared = [chunk, { type: 'write', store: 'mem', config: { collection: 'docs' } }];

describe('a replica set and a store on its own disk', () => {
  let postgres: TestPostgres;
  let app: TestApp;
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-replica-local-'));
  const plugins = memoryHandshakeDir();
  before(async () => {
    postgres = await startPostgres();
    const stores = [
      { name: 'lance', handshake: 'lancedb', path: join(dir, 'lance') },
      { name: 'mem', handshake: 'memory', space: `replica-${process.pid}` },
    ];
    app = await startApp({ 'database-url': await postgres.createDatabase(), 'plugins-dir': plugins, stores: JSON.stringify(stores) });
    await app.booted.ready;
  });
  after(async () => {
    await app?.close();
    await postgres?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(plugins, { recursive: true, force: true });
  });

  const refused = (r: { status: number; body: { detail?: unknown } }) => {
    assert.equal(r.status, 409, JSON.stringify(r.body));
    assert.match(String(r.body.detail), LOCAL);
  };

  test('pipeline create and update: 409, nothing stored or changed', async () => {
    refused(await app.post('/v1/pipelines', { name: 'local', steps: toLocal }));
    assert.equal((await app.request('GET', '/v1/pipelines')).body.length, 0);
    const made = await app.post('/v1/pipelines', { name: 'shared', steps: toShared });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    refused(await app.request('PUT', `/v1/pipelines/${made.body.id}`, { steps: toLocal }));
    assert.deepEqual((await app.request('GET', `/v1/pipelines/${made.body.id}`)).body.steps[1].store, 'mem');
  });

  test('the slug API: validate, create and update answer the same 409', async () => {
    const flat = [
      { type: 'chunk', component: 'token', chunk_size: 16 },
      { type: 'write', component: 'lancedb', table_name: 'docs' },
    ];
    refused(await app.post('/v1/pipeline/validate', { steps: flat }));
    refused(await app.post('/v1/pipeline', { slug: 'local', steps: flat }));
    const ok = await app.post('/v1/pipeline/validate', { steps: [flat[0], { type: 'write', component: 'memory', collection_name: 'docs' }] });
    assert.equal(ok.body.valid, true, JSON.stringify(ok.body));
  });

  test('a job: inline steps, or a stored pipeline writing there (made before the rule), answer 409 at submit; nothing queued', async () => {
    refused(await app.post('/v1/jobs', { steps: toLocal, documents: [{ id: 'a', text: 'Some text.' }] }));
    const stored = await app.booted.deps.services.pipelines.create({
      id: '00000000-0000-4000-8000-000000000001',
      name: 'older',
      description: null,
      steps: toLocal as never,
      created_at: new Date().toISOString(),
      updated_at: new Date().toISOString(),
    });
    refused(await app.post('/v1/jobs', { pipeline_id: stored.id, documents: [{ id: 'a', text: 'Some text.' }] }));
    const jobs = await app.booted.deps.services.postgres!.query('SELECT count(*)::int AS n FROM chunkd_jobs');
    assert.equal(jobs.rows[0].n, 0);
    const ok = await app.post('/v1/jobs', { steps: toShared, documents: [{ id: 'a', text: 'Some text.' }] });
    assert.equal(ok.status, 202, JSON.stringify(ok.body));
  });
});
