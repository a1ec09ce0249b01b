import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { startApp } from './helpers/app.js';
import { browserUrl, startupLine } from '../service/startup-line.js';
import { CLI } from './helpers/cli.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

test('the start-up URL is one a browser can open', () => {
  assert.equal(browserUrl('0.0.0.0', 8000), 'http://127.0.0.1:8000');
  assert.equal(browserUrl('::', 8000), 'http://localhost:8000');
  assert.equal(browserUrl('::1', 81), 'http://[::1]:81');
  assert.equal(browserUrl('127.0.0.1', 8000), 'http://127.0.0.1:8000');
  assert.equal(browserUrl('example.internal', 9), 'http://example.internal:9');
  assert.equal(
    startupLine('0.0.0.0', 8000, { docs: '/docs', playground: '/playground' }),
    'chunkd is listening on http://127.0.0.1:8000 (docs http://127.0.0.1:8000/docs, playground http://127.0.0.1:8000/playground)',
  );
});

test('GET / names the browser pages, taken from the routes that declare one; each loads nothing from another host', async () => {
  const app = await startApp();
  try {
    const { body } = await app.request('GET', '/');
    assert.deepEqual(body.pages, { docs: '/docs', redoc: '/redoc', playground: '/playground' });
    for (const path of Object.values(body.pages as Record<string, string>)) {
      const res = await fetch(app.url + path);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /text\/html/, path);
      const html = await res.text();
      assert.doesNotMatch(html, /(?:src|href)="(?:https?:)?\/\//, `${path} must not load anything from another host`);
      for (const [, src] of html.matchAll(/(?:src|href)="(\/[^"]+)"/g)) assert.equal((await fetch(app.url + src!)).status, 200, src);
    }
  } finally {
    await app.close();
  }
});

test('chunkd serve prints one human line on stdout with the pages; stderr stays JSON', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-startup-'));
  const child = spawn(process.execPath, [...CLI, 'serve', '--host', '127.0.0.1', '--port', '0', '--workers', '0', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  try {
    await new Promise<void>((resolve, reject) => {
      const ready = () => out.includes('\n') && err.includes('"listening"') && resolve();
      child.stdout.on('data', ready);
      child.stderr.on('data', ready);
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${err}`)));
    });
    const port = /:(\d+) /.exec(out)![1];
    assert.equal(
      out,
      `chunkd is listening on http://127.0.0.1:${port} (docs http://127.0.0.1:${port}/docs, redoc http://127.0.0.1:${port}/redoc, playground http://127.0.0.1:${port}/playground)\n`,
    );
    for (const line of err.trim().split('\n')) assert.doesNotThrow(() => JSON.parse(line), line); // the log, unchanged
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
});
