/**
 * A pipeline answered 201 is never lost: not by a restart, not by kill -9 while other writes are
 * in flight. Real server processes on one data directory; the database is reopened and checked.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { DATABASE_FILE } from '../service/storage/service.js';
import { startChild } from './helpers/child.js';
import { inspectDataDir } from './helpers/sqlite.js';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-durable-'));
  dirs.push(dir);
  return dir;
};
const flags = (dir: string) => ['--data-dir', dir, '--workers', '0', '--log-level', 'info'];
const STEPS = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16 } }];

async function call(url: string, method: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

test('a restart keeps every pipeline as it was, and a graceful stop closes the database', async () => {
  const dir = dataDir();
  const first = await startChild(flags(dir));
  const ids: string[] = [];
  for (const name of ['alpha', 'beta', 'gamma']) ids.push((await call(`${first.url}/v1/pipelines`, 'POST', { name, steps: STEPS })).body.id);
  assert.equal((await call(`${first.url}/v1/pipelines/${ids[0]}`, 'PUT', { description: 'changed' })).status, 200);
  assert.equal((await call(`${first.url}/v1/pipelines/${ids[1]}`, 'DELETE')).status, 204);
  const before = (await call(`${first.url}/v1/pipelines`, 'GET')).body;
  assert.equal(await first.stop('SIGTERM'), 0);
  assert.equal(existsSync(join(dir, `${DATABASE_FILE}-wal`)), false, 'the database was closed (WAL checkpointed)');

  const second = await startChild(flags(dir));
  try {
    assert.deepEqual((await call(`${second.url}/v1/pipelines`, 'GET')).body, before);
    const run = await call(`${second.url}/v1/pipelines/${ids[2]}/execute`, 'POST', { text: 'still runs after a restart' });
    assert.equal(run.status, 200);
  } finally {
    await second.stop();
  }
});

test('kill -9 during concurrent writes: every 201 survives and the database passes integrity_check', async () => {
  const dir = dataDir();
  const server = await startChild(flags(dir));
  const acked = new Set<string>();
  let inFlight = 0;
  let inFlightAtKill = -1;
  let killed: Promise<number | null> | undefined;
  const TARGET = 60;

  /** One client: creates pipelines one after another, and updates each third one, until the server dies. */
  async function writer(w: number): Promise<void> {
    for (let i = 0; ; i++) {
      const name = `w${w}-${i}`;
      inFlight++;
      try {
        const res = await call(`${server.url}/v1/pipelines`, 'POST', { name, description: `by writer ${w}`, steps: STEPS });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        acked.add(name);
        if (i % 3 === 0) await call(`${server.url}/v1/pipelines/${res.body.id}`, 'PUT', { description: `updated ${i}` });
      } catch (e) {
        if (killed) return; // the server is gone: this request was in flight
        throw e;
      } finally {
        inFlight--;
      }
      if (acked.size >= TARGET && !killed) {
        inFlightAtKill = inFlight;
        killed = server.stop('SIGKILL');
      }
    }
  }

  await Promise.all(Array.from({ length: 6 }, (_, w) => writer(w)));
  assert.equal(await killed, null, 'killed by a signal, not exited');
  assert.ok(inFlightAtKill > 0, 'writes were in flight when the server was killed');

  const { integrity, names } = await inspectDataDir(dir);
  assert.equal(integrity, 'ok');
  const missing = [...acked].filter((name) => !names.includes(name));
  assert.deepEqual(missing, [], `${acked.size} acknowledged, ${names.length} stored`);
});
