/** Who may call: API keys on every route but health, docs and the index; CORS and cross-origin writes. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startApp } from './helpers/app.js';
import { rawRequest } from './helpers/raw-request.js';

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
