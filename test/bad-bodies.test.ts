/**
 * Bodies that once crashed a route (500) must get a 4xx with the error envelope: nesting deeper
 * than the limit, numbers JSON.parse turns into Infinity, keys no header can carry as they are,
 * and unknown Content-Encodings. Each is sent both to the inline path (small bodies) and, where a
 * route has one, to the worker path (bodies from 64 KiB up, with worker threads).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../kernel/json-shape.js';
import { IGNORED_KEYS_HEADER_MAX, ignoredKeysHeader } from '../kernel/request.js';
import { startApp, type TestApp } from './helpers/app.js';

const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** Pads a body past the worker threshold (64 KiB) with an ignored key. */
const PAD = `"pad": "${'x'.repeat(70 * 1024)}"`;

let inline: TestApp;
let pooled: TestApp;
/** A pipeline stored in each app, by app. */
const pipelines = new Map<TestApp, string>();
before(async () => {
  [inline, pooled] = await Promise.all([startApp(), startApp({ workers: '1' })]);
  await (pooled.booted.deps.executor as { ready?: Promise<void> }).ready;
  for (const app of [inline, pooled]) {
    const res = await app.post('/v1/pipelines', { name: 'p', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 8 } }] });
    assert.equal(res.status, 201);
    pipelines.set(app, res.body.id);
  }
});
after(async () => Promise.all([inline.close(), pooled.close()]));

/** Body texts whose `slot` (a JSON value) sits where a route reads it. */
const ROUTES = (app: TestApp) => [
  { path: '/v1/chunk/token', body: (slot: string, pad = '') => `{"text": ${slot}${pad ? `, ${pad}` : ''}}` },
  { path: '/v1/chunk/token', body: (slot: string, pad = '') => `{"text": "abc", "chunk_size": ${slot}${pad ? `, ${pad}` : ''}}` },
  { path: '/v1/chunk/token', body: (slot: string, pad = '') => `{"text": "abc", "unknown": ${slot}${pad ? `, ${pad}` : ''}}` },
  { path: '/v1/refine/overlap', body: (slot: string, pad = '') => `{"chunks": ${slot}${pad ? `, ${pad}` : ''}}` },
  { path: `/v1/pipelines/${pipelines.get(app)}/execute`, body: (slot: string, pad = '') => `{"text": ${slot}${pad ? `, ${pad}` : ''}}` },
  { path: '/v1/pipelines', body: (slot: string) => `{"name": "n", "steps": [{"type": "chunk", "chunker": "token", "config": {"chunk_size": ${slot}}}]}` },
  { path: '/v1/pipelines', body: (slot: string) => `{"name": "n", "steps": [{"type": "chunk", "chunker": "token", "config": {"x": ${slot}}}]}` },
];

describe('nesting deeper than the limit → 422 too_deep, on every body path', () => {
  for (const levels of [MAX_JSON_DEPTH, 20_000]) {
    test(`${levels} levels`, async () => {
      for (const [app, pad] of [
        [inline, ''],
        [pooled, PAD],
      ] as const) {
        for (const route of ROUTES(app)) {
          if (pad && route.path === '/v1/pipelines') continue; // no worker path
          const res = await app.request('POST', route.path, route.body(nested(levels), pad));
          assert.equal(res.status, 422, `${route.path} ${pad ? 'pooled' : 'inline'}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.code, 'VALIDATION');
          assert.equal(res.body.detail[0].type, 'too_deep', JSON.stringify(res.body.detail));
          assert.match(res.body.detail[0].msg, new RegExp(`more than ${MAX_JSON_DEPTH} levels`));
        }
      }
    });
  }

  test('a pipeline body refused for its shape is not read further (its steps were never checked)', async () => {
    for (const method of ['POST', 'PUT']) {
      const path = method === 'POST' ? '/v1/pipelines' : `/v1/pipelines/${pipelines.get(inline)}`;
      const res = await inline.request(method, path, `{"\\r": ${nested(100)}, "steps": -0, "name": "x"}`);
      assert.equal(res.status, 422, `${method}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.detail[0].type, 'too_deep');
    }
  });

  test('the limit itself is accepted: a body nested exactly MAX_JSON_DEPTH levels deep is read', async () => {
    // body object (1) + "unknown" holding MAX_JSON_DEPTH - 1 levels
    const res = await inline.request('POST', '/v1/chunk/token', `{"text": "abc", "unknown": ${nested(MAX_JSON_DEPTH - 1)}}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});

describe('numbers out of range (1e400 → Infinity) → 422 naming the field', () => {
  test('in a config field, a chunk and a stored step; inline and pooled', async () => {
    for (const literal of ['1e400', '-1e400']) {
      for (const [app, pad] of [
        [inline, ''],
        [pooled, `, ${PAD}`],
      ] as const) {
        const res = await app.request('POST', '/v1/chunk/token', `{"text": "abc", "chunk_size": ${literal}${pad}}`);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['body', 'chunk_size']);
        assert.equal(res.body.detail[0].type, 'finite_number');
      }
      const chunk = `{"text": "a", "start_index": 0, "end_index": ${literal}, "token_count": 1}`;
      const refine = await inline.request('POST', '/v1/refine/overlap', `{"chunks": [${chunk}]}`);
      assert.equal(refine.status, 422, JSON.stringify(refine.body));
      assert.deepEqual(refine.body.detail[0].loc, ['body', 'chunks', 0, 'end_index']);
      const create = await inline.request(
        'POST',
        '/v1/pipelines',
        `{"name": "big", "steps": [{"type": "chunk", "chunker": "token", "config": {"chunk_size": ${literal}}}]}`,
      );
      assert.equal(create.status, 422, JSON.stringify(create.body));
      assert.deepEqual(create.body.detail[0].loc, ['body', 'steps', 0, 'config', 'chunk_size']);
    }
    assert.equal((await inline.request('GET', '/v1/pipelines')).body.length, 1, 'nothing was stored but the fixture');
  });

  test('-0, 1e-400 (0) and huge whole numbers are ordinary numbers: 200 or a 422 of the schema, never a 500', async () => {
    for (const literal of ['-0', '1e-400', '1e300', '9007199254740993', '123456789012345678901234567890']) {
      for (const field of ['chunk_size', 'chunk_overlap']) {
        const res = await inline.request('POST', '/v1/chunk/token', `{"text": "abcdef", "${field}": ${literal}}`);
        assert.ok(res.status === 200 || res.status === 422 || res.status === 400, `${field}: ${literal} → ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status !== 200) assert.equal(typeof res.body.code, 'string');
      }
    }
  });
});

describe('unknown keys are named in X-Chunkd-Ignored-Keys, encoded so any key fits a header', () => {
  test('non-Latin-1, CR/LF and NUL in a key: 200, and the header holds visible ASCII only', async () => {
    const keys = ['ключ', 'a\r\nSet-Cookie: x=1', 'nul\u0000key', '🦛', 'a,b', '50%', 'plain_key'];
    for (const [app, pad] of [
      [inline, ''],
      [pooled, `, ${PAD}`],
    ] as const) {
      for (const route of ['/v1/chunk/token', `/v1/pipelines/${pipelines.get(app)}/execute`]) {
        const body = `{"text": "abc", ${keys.map((k) => `${JSON.stringify(k)}: 1`).join(', ')}${pad}}`;
        const res = await app.request('POST', route, body);
        assert.equal(res.status, 200, `${route}: ${JSON.stringify(res.body)}`);
        const header = res.headers.get('x-chunkd-ignored-keys')!;
        assert.match(header, /^[\x20-\x7e]+$/);
        assert.equal(res.headers.get('set-cookie'), null);
        const listed = header.split(', ').map(decodeURIComponent);
        assert.deepEqual(listed, pad ? [...keys, 'pad'] : keys);
      }
    }
    const create = await inline.request('POST', '/v1/pipelines', `{"name": "k", "steps": [{"type": "chunk", "chunker": "token"}], "ключ\\r\\n": 1}`);
    assert.equal(create.status, 201, JSON.stringify(create.body));
    assert.equal(create.headers.get('x-chunkd-ignored-keys'), '%D0%BA%D0%BB%D1%8E%D1%87%0D%0A');
  });

  test('many long keys: the header stays under its cap and counts the keys it leaves out', async () => {
    const keys = Array.from({ length: 200 }, (_, i) => `key_${i}_${'é'.repeat(40)}`);
    const res = await inline.post('/v1/chunk/token', { text: 'abc', ...Object.fromEntries(keys.map((k) => [k, 1])) });
    assert.equal(res.status, 200);
    const header = res.headers.get('x-chunkd-ignored-keys')!;
    assert.ok(header.length <= IGNORED_KEYS_HEADER_MAX, `${header.length}`);
    const [, more] = /\.\.\. \((\d+) more\)$/.exec(header) ?? [];
    const listed = header.split(', ').slice(0, -1);
    assert.equal(listed.length + Number(more), keys.length);
    assert.deepEqual(listed.map(decodeURIComponent), keys.slice(0, listed.length));
  });

  test('property: any keys give a header value Node accepts, that decodes back to the keys it lists', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 })), {
          maxLength: 60,
        }),
        (keys) => {
          const value = ignoredKeysHeader(keys);
          assert.ok(value.length <= IGNORED_KEYS_HEADER_MAX);
          assert.match(value, /^[\x20-\x7e]*$/);
          const parts = value ? value.split(', ') : [];
          const note = /^\.\.\. \((\d+) more\)$/.exec(parts.at(-1) ?? '');
          if (note) parts.pop();
          assert.equal(parts.length + Number(note?.[1] ?? 0), keys.length);
          assert.deepEqual(
            parts.map(decodeURIComponent),
            keys.slice(0, parts.length).map((k) => k.toWellFormed()),
          );
        },
      ),
    );
  });
});

describe('Content-Encoding', () => {
  const body = JSON.stringify({ text: 'abc def' });
  test('an unknown encoding → 415 UNSUPPORTED_MEDIA_TYPE on every body route', async () => {
    const id = pipelines.get(pooled);
    // A keep-alive socket left idle by the tests before may be closing (5 s server timeout) as it is
    // reused, and a POST on it is not retried: a GET (retried on such a socket) leaves a fresh one.
    await pooled.request('GET', '/health');
    for (const [method, path] of [
      ['POST', '/v1/chunk/token'],
      ['POST', '/v1/refine/overlap'],
      ['POST', '/v1/pipelines'],
      ['PUT', `/v1/pipelines/${id}`],
      ['POST', `/v1/pipelines/${id}/execute`],
    ]) {
      for (const encoding of ['xyz', 'gzip, xyz', 'compress']) {
        const res = await pooled.request(method!, path!, body, { 'content-encoding': encoding });
        assert.equal(res.status, 415, `${method} ${path} ${encoding}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'UNSUPPORTED_MEDIA_TYPE');
        assert.match(res.body.detail, /gzip, deflate or br/);
      }
    }
  });

  test('gzip, deflate, br and identity still work', async () => {
    const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync, identity: (b) => b };
    for (const [encoding, encode] of Object.entries(encoders)) {
      const res = await fetch(`${inline.url}/v1/chunk/token`, {
        method: 'POST',
        body: encode(Buffer.from(body)),
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
      });
      assert.equal(res.status, 200, encoding);
      assert.equal(((await res.json()) as { text: string }[])[0]!.text, 'abc def');
    }
  });
});
