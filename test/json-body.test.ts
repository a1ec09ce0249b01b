/**
 * Small bodies with a Content-Length are parsed by server/middleware/json-body.ts; the same bytes
 * sent chunked (no Content-Length) go through koa-bodyparser. Both must answer alike, byte for byte.
 */
import assert from 'node:assert/strict';
import Koa from 'koa';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { smallJsonBody } from '../server/middleware/json-body.js';
import { startApp, type TestApp } from './helpers/app.js';

let app: TestApp;
before(async () => (app = await startApp({ 'max-body-bytes': '4096' })));
after(async () => app.close());

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
  ['a prototype key', '{"text": "x", "__proto__": {"admin": true}}'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
  ['over the limit', `{"text": "${'x'.repeat(5000)}"}`],
];

for (const [name, body] of BODIES) {
  test(`${name}: the short path answers as koa-bodyparser does`, async () => {
    const withLength = await send(body, false);
    const chunked = await send(body, true);
    assert.equal(withLength.status, chunked.status);
    assert.equal(withLength.body, chunked.body);
  });
}

test('the short path itself parses a body with a Content-Length, and leaves a chunked one alone', async () => {
  // No koa-bodyparser behind it: whatever body the handler sees, the short path parsed.
  const koa = new Koa();
  koa.use(smallJsonBody(4096));
  koa.use((ctx) => void (ctx.body = { seen: (ctx.request as { body?: unknown }).body ?? null }));
  const server = createServer(koa.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    assert.deepEqual(JSON.parse((await send('{"text": "x"}', false, url)).body), { seen: { text: 'x' } });
    assert.deepEqual(JSON.parse((await send('{"text": "x"}', true, url)).body), { seen: null });
  } finally {
    server.close();
  }
});

function send(body: string | Buffer, chunked: boolean, url = `${app.url}/v1/chunk/token`): Promise<{ status: number; body: string }> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = bytes.length;
    const req = request(url, { method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(parts).toString() }));
    });
    req.on('error', reject);
    if (chunked) req.write(bytes); // with no content-length header node:http sends Transfer-Encoding: chunked
    req.end(chunked ? undefined : bytes);
  });
}
