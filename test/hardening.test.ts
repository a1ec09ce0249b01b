/** What an operator relies on: limits, timeouts, auth, CORS, request logs, graceful shutdown, no leaks. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest, type IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { WorkerPool } from '../kernel/engine/index.js';
import { createLogger, LEVELS, type Level } from '../service/logger.js';
import { serve } from '../server/serve.js';
import { resolveSettings } from '../service/settings.js';
import { startApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir, waitFor } from './helpers/busy-plugin.js';
import { chunkEach } from './helpers/run.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
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
      const [chunks] = await chunkEach(
        registry.get('chunker', 'token'),
        { tokenizer: 'character', chunk_size: 1000, chunk_overlap: 0 },
        [BIG_TEXT],
        'codepoint',
        { executor },
      );
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

describe('CORS and cross-origin writes', () => {
  const pipeline = { name: 'p', steps: [{ type: 'chunk', chunker: 'token' }] };
  /** What a page sends with fetch(url, {method: 'POST', body: JSON.stringify(...)}): text/plain, so no preflight. */
  const simple = { 'content-type': 'text/plain;charset=UTF-8' };
  const names = async (app: Awaited<ReturnType<typeof startApp>>) => (await app.request('GET', '/v1/pipelines')).body.map((p: { name: string }) => p.name);

  test('by default no other origin may read, and none may write: simple POSTs, PUT and DELETE are 403, nothing changes', async () => {
    const app = await startApp();
    try {
      const page = { origin: 'https://evil.example' };
      const read = await app.request('GET', '/v1/pipelines', undefined, page);
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('access-control-allow-origin'), null, 'the page cannot read the answer');
      const pre = await app.request('OPTIONS', '/v1/pipelines', undefined, { ...page, 'access-control-request-method': 'DELETE' });
      assert.equal(pre.headers.get('access-control-allow-methods'), null, 'no preflight is granted');

      const created = await app.request('POST', '/v1/pipelines', JSON.stringify(pipeline), { ...simple, ...page });
      assert.equal(created.status, 403, JSON.stringify(created.body));
      assert.equal(created.body.code, 'FORBIDDEN');
      assert.match(created.body.detail, /POST from "https:\/\/evil\.example" is refused.*--cors-origins \(CHUNKD_CORS_ORIGINS\)/);
      assert.equal(created.headers.get('access-control-allow-origin'), null);
      assert.deepEqual(await names(app), [], 'nothing was stored');
      // The refused body is never read: the answer closes the connection instead of draining it.
      const unread = await rawRequest(
        app.url,
        'POST /v1/pipelines HTTP/1.1',
        { origin: page.origin, 'content-type': 'text/plain', 'content-length': '1000000' },
        '{"name"',
      );
      assert.match(unread, /^HTTP\/1\.1 403/);
      assert.match(unread, /\r\nConnection: close\r\n/i);

      const { id } = (await app.post('/v1/pipelines', pipeline)).body; // a program: no Origin
      for (const [method, path, body] of [
        ['PUT', `/v1/pipelines/${id}`, { name: 'hijacked' }],
        ['DELETE', `/v1/pipelines/${id}`, undefined],
        ['POST', `/v1/pipelines/${id}/execute`, { text: 'x' }],
        ['POST', '/v1/chunk/token', { text: 'x' }],
      ] as const) {
        const res = await app.request(method, path, body === undefined ? undefined : JSON.stringify(body), { ...simple, ...page });
        assert.equal(res.status, 403, `${method} ${path}`);
      }
      for (const headers of <Record<string, string>[]>[
        { origin: 'null' },
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site' },
        { origin: `http://127.0.0.1.evil.example:${new URL(app.url).port}` },
      ]) {
        assert.equal((await app.request('DELETE', `/v1/pipelines/${id}`, undefined, headers)).status, 403, JSON.stringify(headers));
      }
      assert.deepEqual(await names(app), ['p'], 'not renamed, not deleted');
      for (const r of app.booted.app.routes.filter((x) => x.method !== 'get' && !x.hidden))
        assert.ok(r.responses[403], `${r.method} ${r.path} documents its 403`);
    } finally {
      await app.close();
    }
  });

  test("the server's own origin, and clients that are not browsers, may write", async () => {
    const app = await startApp();
    try {
      const own = { origin: app.url };
      const res = await app.request('POST', '/v1/pipelines', JSON.stringify(pipeline), { ...simple, ...own });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      assert.equal((await app.request('PUT', `/v1/pipelines/${res.body.id}`, { name: 'q' }, { ...own, 'sec-fetch-site': 'same-origin' })).status, 200);
      assert.equal((await app.request('POST', '/v1/chunk/token', { text: 'hi' }, { 'sec-fetch-site': 'none' })).status, 200, 'typed in by the user');
      assert.equal((await app.request('DELETE', `/v1/pipelines/${res.body.id}`)).status, 204);
    } finally {
      await app.close();
    }
  });

  test('listed origins may read and write; preflights are answered; others stay refused', async () => {
    const app = await startApp({ 'cors-origins': 'https://a.example' });
    try {
      const ok = await app.request('GET', '/health', undefined, { origin: 'https://a.example' });
      assert.equal(ok.headers.get('access-control-allow-origin'), 'https://a.example');
      assert.match(ok.headers.get('access-control-expose-headers') ?? '', /X-Total-Count, Link/);
      const pre = await app.request('OPTIONS', '/v1/pipelines', undefined, {
        origin: 'https://a.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,authorization',
      });
      assert.equal(pre.status, 204);
      assert.equal(pre.headers.get('access-control-allow-methods'), 'GET, POST, OPTIONS', 'the methods the path takes');
      assert.equal(pre.headers.get('access-control-allow-headers'), 'content-type,authorization');
      // A preflight for a path no route declares is not granted: it meets the 404 any request for it does.
      for (const path of ['/v1/chnk/token', '/V1/pipelines', '/v1/pipelines/']) {
        const miss = await app.request('OPTIONS', path, undefined, { origin: 'https://a.example', 'access-control-request-method': 'POST' });
        assert.equal(miss.status, 404, path);
        assert.equal(miss.headers.get('access-control-allow-methods'), null, path);
      }
      const created = await app.request('POST', '/v1/pipelines', pipeline, { origin: 'https://a.example', 'sec-fetch-site': 'cross-site' });
      assert.equal(created.status, 201);
      const err = await app.request('POST', '/v1/chunk/token', { text: 1 }, { origin: 'https://a.example' });
      assert.equal(err.status, 422);
      assert.equal(err.headers.get('access-control-allow-origin'), 'https://a.example', 'errors carry CORS headers too');
      const other = await app.request('POST', '/v1/chunk/token', { text: 'hi' }, { origin: 'https://b.example' });
      assert.equal(other.status, 403);
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    } finally {
      await app.close();
    }
  });

  test('* allows any origin, writes included (the operator asked for it)', async () => {
    const app = await startApp({ 'cors-origins': '*' });
    try {
      const res = await app.request('POST', '/v1/pipelines', JSON.stringify(pipeline), { ...simple, origin: 'https://any.example' });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
    } finally {
      await app.close();
    }
  });
});

describe('request logs', () => {
  test('a line holds its own level and message, whichever were logged before it (the head is kept per level and message)', () => {
    const lines: string[] = [];
    const logger = createLogger('debug', (l) => lines.push(l));
    const said: [Level, string][] = [];
    for (let i = 0; i < 600; i++) {
      const level = LEVELS[i % LEVELS.length]!;
      const msg = i % 3 === 0 ? 'request' : i % 3 === 1 ? `job ${i} "quoted" \u2028` : 'request';
      logger.log(level, msg, i % 2 ? { n: i } : undefined);
      said.push([level, msg]);
    }
    assert.deepEqual(
      lines.map((l) => [JSON.parse(l).level, JSON.parse(l).msg]),
      said,
    );
    assert.deepEqual(
      lines.map((l) => Object.keys(JSON.parse(l)).slice(0, 3)),
      said.map(() => ['time', 'level', 'msg']),
    );
  });

  test('to stderr, calls are written later in one go, in order, each at its own time; fields JSON cannot hold give a line saying so', () => {
    // The default logger (no write of its own) keeps the calls and makes their lines at the flush: by time, past FLUSH_LINES, at exit.
    const script = join(mkdtempSync(join(tmpdir(), 'chunkd-log-')), 'log.ts');
    writeFileSync(
      script,
      `import { createLogger, FLUSH_LINES, FLUSH_MS } from ${JSON.stringify(join(ROOT, 'service/logger.ts'))};
const logger = createLogger('info');
const cycle: Record<string, unknown> = {}; cycle.self = cycle;
const times: number[][] = [];
const at = (i: number) => { const before = Date.now(); logger.log('info', 'n', i === 5 ? { i, big: 10n } : i === 6 ? { i, cycle } : { i }); times.push([before, Date.now()]); };
logger.log('debug', 'below the level');
logger.log('info', 'first');
process.stderr.write('{"mark":"written at once"}\\n'); // the call above only recorded its line: it comes after this
for (let i = 0; i < FLUSH_LINES + 10; i++) at(i);
process.stderr.write('{"mark":"after the loop"}\\n'); // past FLUSH_LINES calls a batch went out before this; the rest waits
process.stdout.write(JSON.stringify({ flushLines: FLUSH_LINES }) + '\\n');
setTimeout(() => {
  process.stderr.write('{"mark":"after FLUSH_MS"}\\n'); // the FLUSH_MS timer wrote the rest before this
  at(FLUSH_LINES + 10);
  setTimeout(() => { at(FLUSH_LINES + 11); process.stdout.write(JSON.stringify({ times }) + '\\n'); process.exit(0); }, 1); // the last two: at exit
}, FLUSH_MS * 2);
`,
    );
    const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, encoding: 'utf8' });
    rmSync(join(script, '..'), { recursive: true, force: true });
    assert.equal(run.status, 0, run.stderr);
    const [{ flushLines }, { times }] = run.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const [mark, first, ...rest] = run.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual([mark.mark, first.msg], ['written at once', 'first'], 'a call is written with its batch, not at the call');
    const markAt = (name: string) => rest.findIndex((r) => r.mark === name);
    const [afterLoop, afterTimer] = [markAt('after the loop'), markAt('after FLUSH_MS')];
    assert.ok(
      afterLoop >= flushLines - 1 && afterLoop < flushLines + 10,
      `past FLUSH_LINES calls a batch is written at once, the rest waits: ${afterLoop} lines before the loop's end`,
    );
    assert.equal(afterTimer, flushLines + 10 + 1, 'the rest is written by the FLUSH_MS timer, the last two at exit');
    const records = rest.filter((r) => r.mark === undefined);
    assert.equal(records.length, flushLines + 12, 'every call once, the one below the level none');
    records.forEach((r, i) => {
      assert.deepEqual([r.level, r.msg], ['info', 'n']);
      if (i === 5 || i === 6) assert.match(r.log_error, /could not be written as JSON/);
      else assert.equal(r.i, i);
      const [before, after] = times[i];
      assert.ok(
        before <= Date.parse(r.time) && Date.parse(r.time) <= after && new Date(r.time).toISOString() === r.time,
        `the time of the call, not of the write: ${r.time}`,
      );
    });
  });

  test('one JSON line per request with id, route, status and duration; never the text', async () => {
    const lines: string[] = [];
    const app = await startApp(
      {},
      {},
      createLogger('info', (l) => lines.push(l)),
    );
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
      for (const r of records) assert.equal(new Date(r.time).toISOString(), r.time); // the time as Date#toISOString writes it
      const clock: string[] = [];
      const timed = createLogger('info', (l) => clock.push(l));
      for (let i = 0; i < 200; i++) {
        const before = Date.now();
        timed.log('info', 'tick');
        const at = Date.parse(JSON.parse(clock.at(-1)!).time);
        assert.ok(before <= at && at <= Date.now(), `a line's time is the time it was logged, to the millisecond: ${clock.at(-1)}`);
        if (i % 20 === 0) await new Promise((r) => setTimeout(r, 3));
      }
      assert.ok(records.some((r) => r.id === 'client-id-42'));
      assert.ok(records.some((r) => r.status === 422));
      assert.ok(!lines.some((l) => l.includes('confidential')), 'a body reached the log');
    } finally {
      await app.close();
    }
  });

  test('--log-level warning keeps request lines out; errors still appear', async () => {
    const lines: string[] = [];
    const app = await startApp(
      { 'plugins-dir': brokenPluginDir() },
      {},
      createLogger('warning', (l) => lines.push(l)),
    );
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
  writeFileSync(
    join(dir, 'broken', 'impl.mjs'),
    `export const create = () => ({ chunk() { throw new Error('ENOENT: no such file /srv/secret/path.bin'); } });`,
  );
  return dir;
}

describe('no internals on the wire', () => {
  test('a plugin bug answers a plain 500; the log has the details', async () => {
    const lines: string[] = [];
    const app = await startApp(
      { 'plugins-dir': brokenPluginDir() },
      {},
      createLogger('info', (l) => lines.push(l)),
    );
    try {
      const res = await app.post('/v1/chunk/broken', { text: 'hi' });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, {
        detail: 'Internal server error. The server log has the details.',
        code: 'INTERNAL',
        message: 'Internal server error. The server log has the details.',
      });
      assert.ok(
        lines.some((l) => l.includes('/srv/secret/path.bin')),
        'the log keeps the cause',
      );
    } finally {
      await app.close();
    }
  });
});

describe('graceful shutdown', () => {
  test('stops accepting, lets the in-flight request finish, then closes', async () => {
    const settings = resolveSettings(
      { host: '127.0.0.1', port: '0', 'plugins-dir': busy, 'data-dir': markerDir(busy), workers: '1', 'shutdown-grace-ms': '20000' },
      {},
    );
    const lines: string[] = [];
    const running = await serve(
      settings,
      createLogger('info', (l) => lines.push(l)),
    );
    const url = `http://127.0.0.1:${running.port}`;
    const markers = markerDir(busy);
    const job = fetch(`${url}/v1/chunk/busy`, { method: 'POST', body: JSON.stringify({ text: BIG_TEXT, marker_dir: markers }) });
    await waitFor(join(markers, 'started'));
    const stopped = running.stop('test');
    const late = await fetch(`${url}/health`).then(
      (r) => r.status,
      () => 'refused',
    );
    assert.ok(late === 503 || late === 'refused', `a new request during shutdown got ${late}`);
    writeFileSync(join(markers, 'release'), '');
    const res = await job;
    assert.equal(res.status, 200, 'the in-flight request finished');
    await stopped;
    assert.ok(lines.some((l) => JSON.parse(l).msg === 'stopped'));
    assert.equal(running.server.listening, false);
  });
});

describe('shutdown and keep-alive connections', () => {
  /** A request on `agent`; resolves with the answer read whole, and the socket it came on. */
  const send = (agent: Agent, url: string, path: string, body?: string) =>
    new Promise<{ res: IncomingMessage; text: string; socket: Socket }>((resolve, reject) => {
      const req = httpRequest(`${url}${path}`, { agent, method: body ? 'POST' : 'GET' }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ res, text, socket: req.socket as Socket }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const closedEvent = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

  test('idle connections close at once; a request in flight is answered with Connection: close', async () => {
    const settings = resolveSettings(
      { host: '127.0.0.1', port: '0', 'plugins-dir': busy, 'data-dir': markerDir(busy), workers: '1', 'shutdown-grace-ms': '20000' },
      {},
    );
    const running = await serve(
      settings,
      createLogger('error', () => {}),
    );
    const url = `http://127.0.0.1:${running.port}`;
    const idleAgent = new Agent({ keepAlive: true });
    const busyAgent = new Agent({ keepAlive: true });
    const markers = markerDir(busy);
    try {
      const idle = await send(idleAgent, url, '/health');
      assert.equal(idle.res.headers.connection, 'keep-alive', 'an ordinary answer keeps the connection');
      const idleClosed = closedEvent(idle.socket);
      const job = send(busyAgent, url, '/v1/chunk/busy', JSON.stringify({ text: BIG_TEXT, marker_dir: markers }));
      await waitFor(join(markers, 'started'));
      const stopped = running.stop('test');
      await idleClosed; // while the busy request still runs: it has not been released
      assert.equal(existsSync(join(markers, 'finished')), false);
      writeFileSync(join(markers, 'release'), '');
      const { res, socket } = await job;
      assert.equal(res.statusCode, 200, 'the request in flight finished');
      assert.equal(res.headers.connection, 'close', 'its client is told not to reuse the connection');
      await closedEvent(socket);
      await stopped;
    } finally {
      writeFileSync(join(markers, 'release'), '');
      idleAgent.destroy();
      busyAgent.destroy();
      await running.stop('test');
    }
  });
});

describe('keep-alive idle timeout', () => {
  const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;
  /** Everything up to the end of one answer with a Content-Length, or the socket's error code. */
  const answer = (socket: Socket) =>
    new Promise<string>((resolve) => {
      let text = '';
      const onData = (d: Buffer) => {
        text += d.toString('latin1');
        const head = text.indexOf('\r\n\r\n');
        const length = /content-length: (\d+)/i.exec(text)?.[1];
        if (head >= 0 && length !== undefined && text.length >= head + 4 + Number(length)) done(text);
      };
      const onError = (e: NodeJS.ErrnoException) => done(`error ${e.code}`);
      const onEnd = () => done(`closed after ${JSON.stringify(text.slice(0, 40))}`);
      const done = (result: string) => {
        socket.off('data', onData).off('error', onError).off('end', onEnd);
        resolve(result);
      };
      socket.on('data', onData).once('error', onError).once('end', onEnd);
    });

  test('a request sent on a kept-alive connection is answered though the event loop stalls past the idle timeout before reading it', async () => {
    // The tests' client and server share one event loop: a stall between the client's write and the
    // server's read must not let a server idle timer (Node's 5 s + 1 s) destroy the connection first.
    const app = await startApp();
    const socket = connect(Number(new URL(app.url).port), '127.0.0.1');
    try {
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write(request('/health'));
      assert.match(await answer(socket), /^HTTP\/1\.1 200/);
      const second = answer(socket);
      socket.write(request('/health'));
      const until = Date.now() + 6_500;
      while (Date.now() < until); // the loop held, as by inline work or a starved process
      assert.match(await second, /^HTTP\/1\.1 200/, 'the request on the idle connection was answered, not reset');
    } finally {
      socket.destroy();
      await app.close();
    }
  });

  test('serve() keeps idle connections for --keep-alive-timeout-ms (65 s by default, above the usual 60 s proxy idle timeout)', async () => {
    for (const [flags, seconds] of [
      [{}, 65],
      [{ 'keep-alive-timeout-ms': '90000' }, 90],
    ] as const) {
      const settings = resolveSettings({ host: '127.0.0.1', port: '0', 'data-dir': markerDir(busy), workers: '0', ...flags }, {});
      const running = await serve(
        settings,
        createLogger('error', () => {}),
      );
      try {
        assert.equal(running.server.keepAliveTimeout, seconds * 1000);
        const res = await fetch(`http://127.0.0.1:${running.port}/health`);
        await res.text();
        assert.equal(res.headers.get('keep-alive'), `timeout=${seconds}`, 'clients are told how long the connection stays');
      } finally {
        await running.stop('test');
      }
    }
  });
});

/** One request over a raw socket, its body sent only in part: the answer's head and body as text, once the server closes. */
function rawRequest(url: string, requestLine: string, headers: Record<string, string>, partialBody: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = Object.entries({ host: `${hostname}:${port}`, ...headers })
        .map(([k, v]) => `${k}: ${v}`)
        .join('\r\n');
      socket.write(`${requestLine}\r\n${head}\r\n\r\n${partialBody}`);
    });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    // A server that keeps the connection open to drain the body never closes it: give up, and let the assertions say so.
    socket.setTimeout(10_000, () => socket.destroy());
  });
}
