/**
 * One body rule for every route (server/middleware/body.ts, server/read-body.ts): a body is parsed
 * as koa-bodyparser parses it, whatever its framing (Content-Length, chunked, compressed); it is
 * read only for a matched route that takes one; each route's byte limit holds for every framing.
 */
import assert from 'node:assert/strict';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import Type from '#typebox';
import { requestBody } from '../server/middleware/body.js';
import { OWN_BUFFER_MIN_BYTES, readBody } from '../server/read-body.js';
import fc from 'fast-check';
import { errorMiddleware } from '../server/middleware/errors.js';
import { silentLogger } from '../service/logger.js';
import { PIPELINE_BODY_FACTOR } from '../server/routes/pipelines.js';
import type { RouteDef } from '../server/route.js';
import { startApp, type TestApp } from './helpers/app.js';

const LIMIT = 4096;

const BODIES: [string, string | Buffer][] = [
  ['an object', '{"text": "Hello there. General Kenobi!", "chunk_size": 4}'],
  ['non-ASCII text', '{"text": "naïve café — 東京 😀 fin", "chunk_size": 3}'],
  ['a UTF-8 byte order mark', '\uFEFF{"text": "bom"}'],
  ['leading JSON whitespace', ' \r\n\t{"text": "spaced"}'],
  ['malformed JSON', '{"text": '],
  ['a JSON string (not strict JSON)', '"text"'],
  ['a bare null', 'null'],
  ['an array', '[1, 2]'],
  ['an empty body', ''],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['at the limit', `{"text": "${'x'.repeat(LIMIT - 12)}"}`],
  ['over the limit', `{"text": "${'x'.repeat(5000)}"}`],
];

type Framing = 'length' | 'chunked' | 'gzip' | 'deflate' | 'br';
const FRAMINGS: Framing[] = ['length', 'chunked', 'gzip', 'deflate', 'br'];

/** A route that takes a body and echoes what the body layer made of it. */
const ECHO: RouteDef = { method: 'post', path: '/', summary: 'echo', tag: 't', body: Type.Object({}), responses: {}, handler: () => {} };

async function listen(koa: Koa): Promise<{ server: Server; url: string }> {
  const server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

describe('the body layer parses as koa-bodyparser does, for every framing', () => {
  let ours: { server: Server; url: string };
  let reference: { server: Server; url: string };
  before(async () => {
    const a = new Koa();
    a.use(errorMiddleware(silentLogger));
    a.use((ctx, next) => ((ctx.state.route = ECHO), next()));
    a.use(requestBody(LIMIT, () => false));
    a.use((ctx) => void (ctx.body = { seen: (ctx.request as { body?: unknown }).body ?? null }));
    const b = new Koa();
    b.use(errorMiddleware(silentLogger));
    b.use(bodyParser({ enableTypes: ['json'], detectJSON: () => true, jsonLimit: `${LIMIT}b`, strict: true }));
    b.use((ctx) => void (ctx.body = { seen: (ctx.request as { body?: unknown }).body ?? null }));
    [ours, reference] = await Promise.all([listen(a), listen(b)]);
  });
  after(() => {
    ours.server.close();
    reference.server.close();
  });

  for (const [name, body] of BODIES) {
    test(name, async () => {
      const expected = await send(reference.url, body, 'length');
      for (const framing of FRAMINGS) {
        // koa-bodyparser's limit counts decoded bytes for compressed bodies, ours too.
        const got = await send(ours.url, body, framing);
        assert.deepEqual(got, expected, framing);
      }
    });
  }

  test('a prototype key: refused as koa-bodyparser refuses it (422), with a message that names the key (where it says only "not valid JSON")', async () => {
    const body = '{"text": "x", "__proto__": {"admin": true}}';
    const expected = await send(reference.url, body, 'length');
    assert.equal(expected.status, 422);
    for (const framing of FRAMINGS) {
      const got = await send(ours.url, body, framing);
      assert.equal(got.status, 422, framing);
      const [issue] = (got.body as { detail: { loc: string[]; msg: string }[] }).detail;
      assert.deepEqual(issue!.loc, ['body', '__proto__'], framing);
      assert.match(issue!.msg, /"__proto__" key.*rename the key or remove it/);
    }
  });

  test('a compressed body that inflates past the limit is refused (413), as is a longer chunked one', async () => {
    const bomb = gzipSync(Buffer.from(`{"text": "${'x'.repeat(1024 * 1024)}"}`));
    assert.ok(bomb.length < LIMIT, 'the compressed body itself is under the limit');
    const res = await sendRaw(ours.url, bomb, { 'content-encoding': 'gzip', 'content-length': String(bomb.length) });
    assert.equal(res.status, 413, res.body);
    assert.match(res.body, /limit of 4096 bytes/);
    assert.equal((await send(ours.url, `{"text": "${'x'.repeat(100_000)}"}`, 'chunked')).status, 413);
  });

  test('an unknown Content-Encoding is refused before the body is read; bad compressed data is a 4xx, not a 500', async () => {
    const unknown = await sendRaw(ours.url, Buffer.from('{}'), { 'content-encoding': 'xyz', 'content-length': '2' });
    assert.ok(unknown.status >= 400 && unknown.status < 500, `${unknown.status} ${unknown.body}`);
    const bad = await sendRaw(ours.url, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip', 'content-length': '15' });
    assert.equal(bad.status, 400, bad.body);
    assert.match(bad.body, /not valid gzip data/);
  });
});

test('readBody: any bytes in any pieces, any framing → exactly those bytes, or 413 exactly when over the limit', async () => {
  const limit = OWN_BUFFER_MIN_BYTES + 1000; // both sides of the own-buffer size
  const koa = new Koa();
  koa.use(async (ctx) => {
    try {
      const bytes = await readBody(ctx.req, limit);
      const owns = bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length;
      ctx.body = { hex: bytes.toString('hex'), owns };
    } catch (e) {
      ctx.status = (e as { status: number }).status;
      ctx.body = { type: (e as { type: string }).type };
    }
  });
  const { server, url } = await listen(koa);
  try {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 300 }),
          fc.integer({ min: limit - 3000, max: limit + 3000 }).map((n) => new Uint8Array(n).fill(7)),
        ),
        fc.array(fc.nat(), { maxLength: 5 }),
        fc.constantFrom<Framing>('length', 'chunked', 'gzip'),
        async (data, cuts, framing) => {
          const bytes = Buffer.from(data);
          const wire = framing === 'gzip' ? gzipSync(bytes) : bytes;
          const headers: Record<string, string> = framing === 'chunked' ? {} : { 'content-length': String(wire.length) };
          if (framing === 'gzip') headers['content-encoding'] = 'gzip';
          const pieces = [...new Set(cuts.map((c) => c % (wire.length + 1)))].sort((a, b) => a - b);
          const res = await sendPieces(url, wire, [0, ...pieces, wire.length], headers);
          if (bytes.length > limit) {
            assert.equal(res.status, 413);
          } else {
            assert.equal(res.status, 200, res.body);
            const got = JSON.parse(res.body) as { hex: string; owns: boolean };
            assert.equal(got.hex, bytes.toString('hex'));
            if (bytes.length >= OWN_BUFFER_MIN_BYTES) assert.ok(got.owns, 'a large body owns its ArrayBuffer');
          }
        },
      ),
      { numRuns: 120 },
    );
  } finally {
    server.close();
  }
});

test('readBody: bodies that declare a large Content-Length and send only a little hold memory for what they sent, not for what they declared', async () => {
  const DECLARED = 32 * 1024 * 1024; // the default --max-body-bytes
  const CONNECTIONS = 24; // 768 MiB declared in all
  let arrived = 0;
  const koa = new Koa();
  koa.use(async (ctx) => {
    const body = readBody(ctx.req, DECLARED);
    ctx.req.once('data', () => arrived++);
    ctx.body = { bytes: (await body).length };
  });
  const { server, url } = await listen(koa);
  const sockets: ReturnType<typeof connect>[] = [];
  try {
    const rssBefore = process.memoryUsage().rss;
    const port = Number(new URL(url).port);
    for (let i = 0; i < CONNECTIONS; i++) {
      const socket = connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${DECLARED}\r\n\r\n${'x'.repeat(1024)}`);
      sockets.push(socket);
    }
    while (arrived < CONNECTIONS) await new Promise((resolve) => setTimeout(resolve, 10));
    const grew = process.memoryUsage().rss - rssBefore;
    assert.ok(
      grew < 128 * 1024 * 1024,
      `RSS grew by ${(grew / 2 ** 20).toFixed(0)} MiB for ${CONNECTIONS} bodies of 1 KiB that declared ${DECLARED} bytes each`,
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
  // A declared length no buffer can hold (past the largest a Buffer may be) is a 503 that says to retry or send less, not a crash.
  const huge = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const koaHuge = new Koa();
    koaHuge.use(async (ctx) => {
      try {
        await readBody(ctx.req, Number.MAX_SAFE_INTEGER);
      } catch (e) {
        ctx.status = (e as { status: number }).status;
        ctx.body = { message: (e as Error).message };
      }
    });
    void listen(koaHuge).then(({ server: s, url: u }) => {
      const req = request(u, { method: 'POST', headers: { 'content-length': String(2 ** 50) } }, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => {
          s.close();
          resolve({ status: res.statusCode!, body: text });
        });
      });
      req.on('error', reject);
      req.write('x');
    });
  });
  assert.equal(huge.status, 503, huge.body);
  assert.match(huge.body, /could not reserve 1125899906842624 bytes .*retry later, or send a smaller body/);
  // A declared length that is sent in full still comes back whole, in a buffer of its own.
  const { server: again, url: againUrl } = await listen(koa);
  try {
    const wire = Buffer.alloc(3 * 1024 * 1024 + 17, 'a');
    const res = await sendPieces(againUrl, wire, [0, 1000, 70_000, wire.length], { 'content-length': String(wire.length) });
    assert.deepEqual(JSON.parse(res.body), { bytes: wire.length });
  } finally {
    again.close();
  }
});

/** Send `wire` split at the given offsets, each piece its own write. */
function sendPieces(url: string, wire: Buffer, at: number[], headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
    for (let i = 0; i + 1 < at.length; i++) if (at[i + 1]! > at[i]!) req.write(wire.subarray(at[i], at[i + 1]));
    req.end();
  });
}

describe("in the app: the body is read only for a matched route, under that route's limit", () => {
  let app: TestApp;
  let keyed: TestApp;
  before(async () => ([app, keyed] = await Promise.all([startApp({ 'max-body-bytes': String(4 * 1024 * 1024) }), startApp({ 'api-keys': 'k1' })])));
  after(() => Promise.all([app.close(), keyed.close()]));

  test('an unknown route answers 404 (401 on a keyed server) whatever its body', async () => {
    for (const body of ['not json at all', '{"text": ', Buffer.from([0xff, 0xfe, 0x00])]) {
      for (const framing of ['length', 'chunked', 'gzip'] as Framing[]) {
        assert.equal((await send(`${app.url}/v1/chunk/nope`, body, framing)).status, 404, `${framing} ${String(body)}`);
        assert.equal((await send(`${keyed.url}/v1/chunk/nope`, body, framing)).status, 401);
        assert.equal((await send(`${keyed.url}/v1/chunk/nope`, body, framing, { authorization: 'Bearer k1' })).status, 404);
      }
    }
    // A route known for another method: 405, its body unread too.
    const res = await sendRaw(`${app.url}/health`, Buffer.from('garbage'), { 'content-length': '7' }, 'POST');
    assert.equal(res.status, 405, res.body);
  });

  test('a refused request whose body is still coming is answered at once, and its connection closed', async () => {
    for (const [server, path, status] of [
      [app, '/v1/chunk/nope', 404],
      [keyed, '/v1/chunk/token', 401],
      [app, '/health', 200],
    ] as const) {
      // A chunked body that never ends: the answer must not wait for it, nor keep the connection.
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
      const method = path === '/health' ? 'GET' : 'POST';
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"te:\r\n`);
      let text = '';
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      await new Promise<void>((resolve) => socket.once('close', () => resolve()));
      assert.match(text, new RegExp(`^HTTP/1\\.1 ${status} `), `${path}: ${text.slice(0, 200)}`);
      assert.match(text, /\r\nConnection: close\r\n/i);
    }
  });

  test('a route that takes no body ignores one', async () => {
    const res = await sendRaw(`${app.url}/health`, Buffer.from('garbage'), { 'content-length': '7' }, 'GET');
    assert.equal(res.status, 200, res.body);
  });

  test('pipeline create and update bodies stop at a multiple of --max-pipeline-bytes, with or without a Content-Length', async () => {
    const PIPELINE_BODY_MAX_BYTES = PIPELINE_BODY_FACTOR * app.settings.maxPipelineBytes;
    const big = JSON.stringify({ name: 'big', description: 'x'.repeat(PIPELINE_BODY_MAX_BYTES), steps: [{ type: 'chunk', chunker: 'token' }] });
    for (const framing of ['length', 'chunked', 'gzip'] as Framing[]) {
      const res = await send(`${app.url}/v1/pipelines`, big, framing);
      assert.equal(res.status, 413, `${framing}: ${JSON.stringify(res.body)}`);
      assert.match((res.body as { detail: string }).detail, new RegExp(`limit of ${PIPELINE_BODY_MAX_BYTES} bytes for POST /v1/pipelines`));
      const put = await send(`${app.url}/v1/pipelines/some-id`, big, framing, {}, 'PUT');
      assert.equal(put.status, 413, framing);
    }
    // Under the route's limit, a body of the same kind is read and checked as usual.
    const ok = JSON.stringify({ name: 'fits', padding: 'x'.repeat(100_000), steps: [{ type: 'chunk', chunker: 'token' }] });
    assert.equal((await send(`${app.url}/v1/pipelines`, ok, 'chunked')).status, 201);
  });
});

/** Send `body` to `url` framed as asked; the answer's status and parsed body. */
async function send(url: string, body: string | Buffer, framing: Framing, extra: Record<string, string> = {}, method = 'POST') {
  let bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (framing === 'gzip' || framing === 'deflate' || framing === 'br') {
    bytes = framing === 'gzip' ? gzipSync(bytes) : framing === 'deflate' ? deflateSync(bytes) : brotliCompressSync(bytes);
    headers['content-encoding'] = framing;
  }
  if (framing !== 'chunked') headers['content-length'] = String(bytes.length);
  const res = await sendRaw(url, bytes, headers, method);
  return { status: res.status, body: res.body ? (JSON.parse(res.body) as unknown) : null };
}

function sendRaw(url: string, bytes: Buffer, headers: Record<string, string>, method = 'POST'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString() }));
    });
    // The server may answer and close before it reads the whole body: the answer is what counts.
    req.on('error', (e: NodeJS.ErrnoException) => (e.code === 'EPIPE' || e.code === 'ECONNRESET' ? undefined : reject(e)));
    if (headers['content-length'] === undefined) req.write(bytes); // no content-length: node:http sends Transfer-Encoding: chunked
    req.end(headers['content-length'] === undefined ? undefined : bytes);
  });
}
