/** What an operator relies on: limits, timeouts, auth, CORS, request logs, graceful shutdown, no leaks. */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/pool.js';
import { createLogger } from '../server/logger.js';
import { serve } from '../server/serve.js';
import { resolveSettings } from '../server/settings.js';
import { startApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir, waitFor } from './helpers/busy-plugin.js';

const busy = busyPluginDir();
after(() => rmSync(busy, { recursive: true, force: true }));

describe('limits: 413 naming the limit and the setting', () => {
  test('texts per batch, characters per text, chunks per refine call, body bytes', async () => {
    const app = await startApp({ 'max-texts': '3', 'max-text-chars': '10', 'max-chunks': '2', 'max-body-bytes': '2000' });
    try {
      const cases: [string, unknown, RegExp][] = [
        ['/v1/chunk/token', { text: ['a', 'b', 'c', 'd'] }, /The batch has 4 texts; the limit is 3\. .*--max-texts \(CHUNKD_MAX_TEXTS\)/],
        ['/v1/chunk/token', { text: 'x'.repeat(11) }, /The text has 11 characters; the limit is 10\. .*--max-text-chars \(CHUNKD_MAX_TEXT_CHARS\)/],
        ['/v1/chunk/token', { text: ['ok', 'x'.repeat(11)] }, /Text 1 has 11 characters/],
        ['/v1/chunk/token', { text: 'x'.repeat(3000) }, /larger than the limit of 2000 bytes.*--max-body-bytes/],
      ];
      for (const [path, body, message] of cases) {
        const res = await app.post(path, body);
        assert.equal(res.status, 413, JSON.stringify(res.body));
        assert.equal(res.body.code, 'TOO_LARGE');
        assert.match(res.body.detail, message);
      }
      assert.equal((await app.post('/v1/chunk/token', { text: ['a', 'b', 'c'] })).status, 200, 'at the limit is fine');
    } finally {
      await app.close();
    }
  });
});

describe('request timeout', () => {
  test('a request over the deadline gets 504, and its pooled work is stopped', async () => {
    const app = await startApp({ 'request-timeout-ms': '1500', 'plugins-dir': busy, workers: '1' });
    const markers = markerDir(busy);
    try {
      await (app.booted.deps.executor as WorkerPool).ready;
      const res = await app.post('/v1/chunk/busy', { text: BIG_TEXT, marker_dir: markers });
      assert.equal(res.status, 504);
      assert.equal(res.body.code, 'TIMEOUT');
      assert.match(res.body.detail, /longer than 1\.5 s and was abandoned.*--request-timeout-ms/);
      assert.ok(existsSync(join(markers, 'started')), 'the job had started');
      writeFileSync(join(markers, 'release'), '');
      // Had the worker survived, it would see the release file and write `finished` within milliseconds.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(existsSync(join(markers, 'finished')), false, 'the abandoned job kept running');
      // The pool replaces the killed worker; called directly, so a slow cold start cannot hit the 1.5 s deadline.
      const { registry, executor } = app.booted.deps;
      const [chunks] = await executor.chunk(registry.get('chunker', 'token'), { tokenizer: 'character', chunk_size: 1000, chunk_overlap: 0 }, [BIG_TEXT], 'codepoint');
      assert.equal(chunks!.map((c) => c.text).join(''), BIG_TEXT, 'the pool replaced the worker');
      assert.equal((await app.post('/v1/chunk/token', { text: BIG_TEXT, chunk_size: 1000 })).status, 200, 'clients are served by the pool again');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await app.close();
    }
  });
});

describe('API keys', () => {
  test('every route needs a valid Bearer key but health, docs and the index; an unknown path too', async () => {
    const app = await startApp({ 'api-keys': 'key-one,key-two' });
    try {
      const body = { text: 'hello' };
      const none = await app.request('POST', '/v1/chunk/token', body);
      assert.equal(none.status, 401);
      assert.equal(none.body.code, 'UNAUTHORIZED');
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      assert.match(none.body.detail, /Authorization: Bearer <key>/);
      const wrong = await app.request('POST', '/v1/chunk/token', body, { authorization: 'Bearer key-three' });
      assert.equal(wrong.status, 401);
      assert.doesNotMatch(JSON.stringify(wrong.body), /key-one|key-two/);
      for (const key of ['key-one', 'key-two']) {
        assert.equal((await app.request('POST', '/v1/chunk/token', body, { authorization: `Bearer ${key}` })).status, 200);
      }
      assert.equal((await app.request('GET', '/v1/plugins')).status, 401);
      for (const open of ['/health', '/docs', '/redoc', '/openapi.json', '/']) assert.equal((await app.request('GET', open)).status, 200, open);
      // Deny by default: a path that is no route's (however close to one) needs the key too; with it, 404.
      for (const path of ['/V1/plugins', '/v1/plugins/', '/nope', '/Health']) {
        assert.equal((await app.request('GET', path)).status, 401, path);
        assert.equal((await app.request('GET', path, undefined, { authorization: 'Bearer key-one' })).status, 404, path);
      }
    } finally {
      await app.close();
    }
  });

  test('without keys configured, no header is needed', async () => {
    const app = await startApp();
    try {
      assert.equal((await app.post('/v1/chunk/token', { text: 'hi' })).status, 200);
    } finally {
      await app.close();
    }
  });
});

describe('CORS', () => {
  test('allows any origin by default, and answers preflights', async () => {
    const app = await startApp();
    try {
      const res = await app.request('POST', '/v1/chunk/token', { text: 'hi' }, { origin: 'https://app.example' });
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      const pre = await app.request('OPTIONS', '/v1/chunk/token', undefined, { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,authorization' });
      assert.equal(pre.status, 204);
      assert.match(pre.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type,authorization');
      const err = await app.request('POST', '/v1/chunk/token', { text: 1 }, { origin: 'https://app.example' });
      assert.equal(err.headers.get('access-control-allow-origin'), '*', 'errors carry CORS headers too');
    } finally {
      await app.close();
    }
  });

  test('with a list, only the listed origins are allowed', async () => {
    const app = await startApp({ 'cors-origins': 'https://a.example' });
    try {
      const ok = await app.request('GET', '/health', undefined, { origin: 'https://a.example' });
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://a.example');
      const other = await app.request('GET', '/health', undefined, { origin: 'https://b.example' });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    } finally {
      await app.close();
    }
  });
});

describe('request logs', () => {
  test('one JSON line per request with id, route, status and duration; never the text', async () => {
    const lines: string[] = [];
    const app = await startApp({}, {}, createLogger('info', (l) => lines.push(l)));
    try {
      const secret = 'confidential words that must not be logged';
      const res = await app.post('/v1/chunk/token', { text: secret });
      const id = res.headers.get('x-request-id');
      assert.match(id ?? '', /^[0-9a-f-]{36}$/);
      const given = await app.request('GET', '/health', undefined, { 'x-request-id': 'client-id-42' });
      assert.equal(given.headers.get('x-request-id'), 'client-id-42');
      await app.post('/v1/chunk/token', { text: 7, note: secret });
      const records = lines.map((l) => JSON.parse(l));
      const rec = records.find((r) => r.id === id);
      assert.deepEqual([rec.msg, rec.method, rec.route, rec.status], ['request', 'POST', '/v1/chunk/token', 200]);
      assert.equal(typeof rec.duration_ms, 'number');
      assert.ok(records.some((r) => r.id === 'client-id-42'));
      assert.ok(records.some((r) => r.status === 422));
      assert.ok(!lines.some((l) => l.includes('confidential')), 'a body reached the log');
    } finally {
      await app.close();
    }
  });

  test('--log-level warning keeps request lines out; errors still appear', async () => {
    const lines: string[] = [];
    const app = await startApp({ 'plugins-dir': brokenPluginDir() }, {}, createLogger('warning', (l) => lines.push(l)));
    try {
      await app.post('/v1/chunk/token', { text: 'hi' });
      assert.equal(lines.length, 0);
      const res = await app.post('/v1/chunk/broken', { text: 'hi' });
      assert.equal(res.status, 500);
      assert.ok(lines.some((l) => JSON.parse(l).level === 'error'));
    } finally {
      await app.close();
    }
  });
});

/** A plugin whose implementation throws an error carrying a file path: a bug, whose details stay in the log. */
function brokenPluginDir(): string {
  const dir = join(busy, '_broken');
  mkdirSync(join(dir, 'broken'), { recursive: true });
  writeFileSync(
    join(dir, 'broken', 'index.mjs'),
    `export default { name: 'broken', kind: 'chunker', summary: 'Always fails.', extras: [], config: { type: 'object', properties: {} }, load: () => import('./impl.mjs') };`,
  );
  writeFileSync(join(dir, 'broken', 'impl.mjs'), `export const create = () => ({ chunk() { throw new Error('ENOENT: no such file /srv/secret/path.bin'); } });`);
  return dir;
}

describe('no internals on the wire', () => {
  test('a plugin bug answers a plain 500; the log has the details', async () => {
    const lines: string[] = [];
    const app = await startApp({ 'plugins-dir': brokenPluginDir() }, {}, createLogger('info', (l) => lines.push(l)));
    try {
      const res = await app.post('/v1/chunk/broken', { text: 'hi' });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, { detail: 'Internal server error. The server log has the details.', code: 'INTERNAL' });
      assert.ok(lines.some((l) => l.includes('/srv/secret/path.bin')), 'the log keeps the cause');
    } finally {
      await app.close();
    }
  });
});

describe('graceful shutdown', () => {
  test('stops accepting, lets the in-flight request finish, then closes', async () => {
    const settings = resolveSettings({ host: '127.0.0.1', port: '0', 'plugins-dir': busy, 'data-dir': markerDir(busy), workers: '1', 'shutdown-grace-ms': '20000' }, {});
    const lines: string[] = [];
    const running = await serve(settings, createLogger('info', (l) => lines.push(l)));
    const url = `http://127.0.0.1:${running.port}`;
    const markers = markerDir(busy);
    const job = fetch(`${url}/v1/chunk/busy`, { method: 'POST', body: JSON.stringify({ text: BIG_TEXT, marker_dir: markers }) });
    await waitFor(join(markers, 'started'));
    const stopped = running.stop('test');
    const late = await fetch(`${url}/health`).then((r) => r.status, () => 'refused');
    assert.ok(late === 503 || late === 'refused', `a new request during shutdown got ${late}`);
    writeFileSync(join(markers, 'release'), '');
    const res = await job;
    assert.equal(res.status, 200, 'the in-flight request finished');
    await stopped;
    assert.ok(lines.some((l) => JSON.parse(l).msg === 'stopped'));
    assert.equal(running.server.listening, false);
  });
});
