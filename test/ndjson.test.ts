/** NDJSON answers for batches (server/stream/): chunk, refine and pipeline execute, failures per document, disconnects, the deadline. */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/engine/index.js';
import type { Logger } from '../service/logger.js';
import { startApp, type TestApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir, waitFor } from './helpers/busy-plugin.js';
import { gatePluginDir } from './helpers/gate-plugin.js';

const NDJSON = { accept: 'application/x-ndjson', 'content-type': 'application/json' };
const gate = gatePluginDir();
const busy = busyPluginDir();
after(() => {
  rmSync(gate, { recursive: true, force: true });
  rmSync(busy, { recursive: true, force: true });
});

/** A streamed answer: its status, Content-Type and lines (parsed). */
async function stream(app: TestApp, path: string, body: unknown) {
  const res = await fetch(app.url + path, { method: 'POST', headers: NDJSON, body: JSON.stringify(body) });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    type,
    text,
    lines: type.startsWith('application/x-ndjson')
      ? text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l))
      : [],
  };
}

/** The lines after `{total}`, as the JSON answer's list: line i at index i. */
function byIndex(lines: any[]): unknown[] {
  const [head, ...rest] = lines;
  assert.deepEqual(Object.keys(head), ['total']);
  assert.equal(rest.length, head.total, 'one line per document');
  assert.deepEqual(
    rest.map((l) => l.index).sort((a, b) => a - b),
    [...Array(head.total).keys()],
    'each index exactly once',
  );
  const out: unknown[] = [];
  for (const l of rest) out[l.index] = 'chunks' in l ? l.chunks : { error: l.error };
  return out;
}

/** A logger that keeps the request log lines, so a test can wait for a request's handler to finish. */
function requestWatcher(): Logger & { finished(path: string): Promise<void> } {
  const seen: string[] = [];
  const waiting: { path: string; resolve(): void }[] = [];
  return {
    log(_level, msg, fields) {
      if (msg !== 'request') return;
      seen.push(String(fields?.path));
      for (const w of waiting.filter((x) => x.path === fields?.path)) w.resolve();
    },
    finished: (path) => (seen.includes(path) ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ path, resolve }))),
  };
}

describe('streamed batches', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ 'plugins-dir': gate })));
  after(() => app.close());

  const texts = ['The first document. It has two sentences.', '', '短い文書です。🙂 emoji and CJK', 'line one\r\nline two\r\n'];

  test('chunk: a first line with the total, then each document once, equal to the JSON answer at its index', async () => {
    const body = { text: texts, chunk_size: 8 };
    const json = await app.post('/v1/chunk/token', body);
    const res = await stream(app, '/v1/chunk/token', body);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/x-ndjson; charset=utf-8');
    assert.ok(res.text.endsWith('\n'));
    assert.deepEqual(byIndex(res.lines), json.body);
  });

  test('chunk: return_type texts and another offset unit stream what the JSON answer holds', async () => {
    const body = { text: texts, chunk_size: 5, offset_unit: 'utf8', return_type: 'texts' };
    assert.deepEqual(byIndex((await stream(app, '/v1/chunk/sentence', body)).lines), (await app.post('/v1/chunk/sentence', body)).body);
  });

  test('refine: each list of a list of lists is a document', async () => {
    const lists = (await app.post('/v1/chunk/token', { text: texts, chunk_size: 6 })).body;
    const body = { chunks: lists, context_size: 2 };
    const res = await stream(app, '/v1/refine/overlap', body);
    assert.equal(res.status, 200);
    assert.deepEqual(byIndex(res.lines), (await app.post('/v1/refine/overlap', body)).body);
  });

  test('pipeline execute: each text through every step', async () => {
    const created = await app.post('/v1/pipelines', {
      name: 'streamed',
      steps: [
        { type: 'chunk', chunker: 'token', config: { chunk_size: 6 } },
        { type: 'refine', refinery: 'overlap', config: { context_size: 2 } },
      ],
    });
    assert.equal(created.status, 201);
    const path = `/v1/pipelines/${created.body.id}/execute`;
    const res = await stream(app, path, { text: texts });
    assert.equal(res.status, 200);
    assert.deepEqual(byIndex(res.lines), (await app.post(path, { text: texts })).body);
  });

  test('a single text is a batch of one: {total: 1}, then its chunks at index 0', async () => {
    const body = { text: 'abcdefghij', chunk_size: 4 };
    const res = await stream(app, '/v1/chunk/token', body);
    assert.deepEqual(res.lines[0], { total: 1 });
    assert.deepEqual(res.lines.slice(1), [{ index: 0, chunks: (await app.post('/v1/chunk/token', body)).body }]);
  });

  test('a document that fails gives an error line with the error body; the others are answered', async () => {
    const res = await stream(app, '/v1/chunk/gate', { text: ['first', 'FAIL', 'third'] });
    assert.equal(res.status, 200);
    const out = byIndex(res.lines) as any[];
    assert.equal(out[0][0].text, 'first');
    assert.deepEqual(out[1], {
      error: {
        detail: 'The gate refuses the text FAIL: send another text.',
        code: 'BAD_REQUEST',
        message: 'The gate refuses the text FAIL: send another text.',
      },
    });
    assert.equal(out[2][0].text, 'third');
  });

  test('what is wrong with the whole request is an ordinary JSON error, before any line', async () => {
    const refusals: [string, unknown, number, string][] = [
      ['/v1/chunk/token', { text: ['a', 'b'], chunk_size: 0 }, 422, 'VALIDATION'],
      ['/v1/chunk/token', { text: ['a', 'b'], chunk_size: 4, chunk_overlap: 4 }, 400, 'BAD_REQUEST'], // refused by the plugin's own rule
      ['/v1/chunk/token', { text: ['a', 7] }, 422, 'VALIDATION'],
      ['/v1/refine/overlap', { chunks: [[], { text: 'x' }] }, 422, 'VALIDATION'],
      ['/v1/pipelines/no-such-id/execute', { text: ['a'] }, 404, 'NOT_FOUND'],
    ];
    for (const [path, body, status, code] of refusals) {
      const res = await fetch(app.url + path, { method: 'POST', headers: NDJSON, body: JSON.stringify(body) });
      assert.equal(res.status, status, `${path} ${JSON.stringify(body)}`);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
      assert.equal(((await res.json()) as { code: string }).code, code);
    }
  });

  test('JSON stays the default: no Accept, */*, or JSON preferred', async () => {
    for (const accept of [undefined, '*/*', 'application/json', 'application/json, application/x-ndjson;q=0.5']) {
      const res = await fetch(`${app.url}/v1/chunk/token`, {
        method: 'POST',
        headers: accept ? { accept } : {},
        body: JSON.stringify({ text: ['abcdef'], chunk_size: 4 }),
      });
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, String(accept));
      assert.deepEqual(
        ((await res.json()) as { text: string }[][]).map((l) => l.map((c) => c.text)),
        [['abcd', 'ef']],
      );
    }
  });

  test('a client that disconnects mid-stream stops the batch: no further document starts', async () => {
    const watcher = requestWatcher();
    const own = await startApp({ 'plugins-dir': gate }, {}, watcher);
    const markers = markerDir(gate);
    const log = join(markers, 'log');
    try {
      const client = new AbortController();
      const res = await fetch(`${own.url}/v1/chunk/gate`, {
        method: 'POST',
        headers: NDJSON,
        body: JSON.stringify({ text: ['one', 'wait-two', 'three', 'four', 'five'], marker_dir: markers }),
        signal: client.signal,
      });
      const reader = res.body!.getReader();
      let received = '';
      while (received.split('\n').length < 3) {
        const { done, value } = await reader.read(); // {total} and document 0
        if (done) break; // a stream that ends early fails the assertion below, not a loop that never ends
        received += new TextDecoder().decode(value);
      }
      assert.deepEqual(JSON.parse(received.split('\n')[1]!).chunks[0].text, 'one');
      while (!readFileSync(log, 'utf8').includes('wait-two')) await new Promise((r) => setTimeout(r, 10));
      client.abort();
      // Not released: the document in flight ends when the server aborts its signal on the disconnect.
      await watcher.finished('/v1/chunk/gate'); // the handler has returned: nothing runs for this request any more
      assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['one', 'wait-two'], 'no document started after the disconnect');
      // The server goes on serving.
      assert.equal((await own.post('/v1/chunk/token', { text: ['abc'] })).status, 200);
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await own.close();
    }
  });

  test('a client that disconnects before streaming starts (while the chunker is made) gets no document run', async () => {
    const watcher = requestWatcher();
    const own = await startApp({ 'plugins-dir': gate }, {}, watcher);
    const markers = markerDir(gate);
    const log = join(markers, 'log');
    try {
      const client = new AbortController();
      const sent = fetch(`${own.url}/v1/chunk/gate`, {
        method: 'POST',
        headers: NDJSON,
        body: JSON.stringify({ text: ['one', 'two'], marker_dir: markers, hold: true }),
        signal: client.signal,
      });
      sent.catch(() => {});
      await waitFor(log); // the server is making the chunker: no line sent yet
      client.abort();
      // The server sees the socket close on this same event loop; a moment is enough before the release.
      await new Promise((r) => setTimeout(r, 300));
      writeFileSync(join(markers, 'release'), '');
      await watcher.finished('/v1/chunk/gate');
      assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['create'], 'a document ran for a client that had left');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await own.close();
    }
  });

  test('past the deadline, each document not yet answered gets a TIMEOUT line and the answer ends', async () => {
    const own = await startApp({ 'plugins-dir': gate, 'request-timeout-ms': '1000' });
    const markers = markerDir(gate);
    try {
      const res = await stream(own, '/v1/chunk/gate', { text: ['one', 'wait-two', 'three'], marker_dir: markers });
      assert.equal(res.status, 200);
      const out = byIndex(res.lines) as any[];
      assert.equal(out[0][0].text, 'one');
      for (const i of [1, 2]) {
        assert.equal(out[i].error.code, 'TIMEOUT');
        assert.match(out[i].error.detail, /longer than 1 s and was abandoned.*--request-timeout-ms/);
      }
      assert.ok(!readFileSync(join(markers, 'log'), 'utf8').includes('three'), 'the document after the deadline never started');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await own.close();
    }
  });
});

describe('streamed batches over the worker pool', () => {
  test('a disconnect cancels the pool task running a document, and the next one never starts', async () => {
    const watcher = requestWatcher();
    const app = await startApp({ 'plugins-dir': busy, workers: '1' }, {}, watcher);
    const markers = markerDir(busy);
    try {
      await (app.booted.deps.executor as WorkerPool).ready;
      const client = new AbortController();
      const res = await fetch(`${app.url}/v1/chunk/busy`, {
        method: 'POST',
        headers: NDJSON,
        body: JSON.stringify({ text: [BIG_TEXT, BIG_TEXT], marker_dir: markers }),
        signal: client.signal,
      });
      assert.equal(res.status, 200);
      await waitFor(join(markers, 'started'));
      rmSync(join(markers, 'started')); // the second document would write it again
      client.abort();
      await watcher.finished('/v1/chunk/busy');
      writeFileSync(join(markers, 'release'), '');
      // Had the worker survived, it would see the release file and write `finished` within milliseconds.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(existsSync(join(markers, 'finished')), false, 'the cancelled document kept running');
      assert.equal(existsSync(join(markers, 'started')), false, 'a document started after the disconnect');
      assert.equal((await app.post('/v1/chunk/token', { text: BIG_TEXT, chunk_size: 1000 })).status, 200, 'the pool serves again');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await app.close();
    }
  });
});
