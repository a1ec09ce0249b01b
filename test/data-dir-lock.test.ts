/**
 * One writer per data directory: a second server (or `chunkd ingest`) on a data directory a
 * running server holds refuses to start, naming the directory and the process; a lock left by a
 * process that no longer runs is taken over.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from '../service/storage/data-dir-lock.js';
import { ingestCommand } from '../cli/ingest.js';
import { startChild, type ChildServer } from './helpers/child.js';

describe('a data directory in use', () => {
  let dataDir: string;
  let server: ChildServer | undefined;
  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'chunkd-lock-'));
    server = await startChild(['--data-dir', dataDir, '--workers', '0']);
  });
  after(async () => {
    await server?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('a second server refuses to start, naming the directory and the running process', async () => {
    const pid = server!.child.pid!;
    await assert.rejects(startChild(['--data-dir', dataDir, '--workers', '0']), (e: Error) => {
      assert.match(e.message, /server exited with 1/);
      assert.ok(e.message.includes(dataDir), e.message);
      assert.match(e.message, new RegExp(`pid ${pid}, chunkd serve`));
      return true;
    });
    // The first still answers.
    assert.equal((await fetch(`${server!.url}/health`)).status, 200);
  });

  test('this process taking it is refused too (what chunkd ingest does)', () => {
    assert.throws(() => lockDataDir(dataDir, 'chunkd ingest'), DataDirInUseError);
  });

  test('chunkd ingest beside the server exits 2 naming the directory and the process', async () => {
    const src = mkdtempSync(join(tmpdir(), 'chunkd-lock-src-'));
    writeFileSync(join(src, 'a.txt'), 'hello');
    writeFileSync(join(src, 'p.json'), JSON.stringify({ steps: [{ type: 'write', store: 'default', config: { collection: 'c' } }] }));
    const writes: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as typeof process.stderr.write;
    let code: number;
    try {
      code = await ingestCommand([src, '--pipeline', join(src, 'p.json')], { CHUNKD_DATA_DIR: dataDir });
    } finally {
      process.stderr.write = write;
      rmSync(src, { recursive: true, force: true });
    }
    assert.equal(code, 2);
    assert.match(writes.join(''), new RegExp(`in use by another chunkd process \\(pid ${server!.child.pid}`));
  });

  test('the server releases it on a clean stop: another one starts', async () => {
    assert.equal(await server!.stop('SIGTERM'), 0);
    assert.equal(existsSync(join(dataDir, LOCK_FILE)), false);
    server = await startChild(['--data-dir', dataDir, '--workers', '0']);
  });
});

describe('a stale lock', () => {
  test('left by a process that no longer runs, it is taken over', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chunkd-lock-stale-'));
    try {
      const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const deadPid = Number(gone.stdout);
      const file = join(dir, LOCK_FILE);
      writeFileSync(file, JSON.stringify({ pid: deadPid, host: hostname(), command: 'chunkd serve', since: '2020-01-01T00:00:00.000Z' }));
      const release = lockDataDir(dir, 'chunkd serve');
      assert.equal((JSON.parse(readFileSync(file, 'utf8')) as { pid: number }).pid, process.pid);
      release();
      assert.equal(existsSync(file), false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
