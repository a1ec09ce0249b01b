/** The wire contract over HTTP (DESIGN.md §3), checked on the built-in token chunker. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';

let app: TestApp;
before(async () => (app = await startApp({ 'max-body-bytes': '4096' })));
after(async () => app.close());

describe('errors: status, code and a message that says what to do', () => {
  const cases: [string, string, string, unknown, number, string, RegExp][] = [
    ['malformed JSON', 'POST', '/v1/chunk/token', '{"text": ', 422, 'VALIDATION', /not a valid JSON object/],
    ['JSON that is not an object', 'POST', '/v1/chunk/token', [1, 2], 422, 'VALIDATION', /must be a JSON object/],
    ['a bare JSON null', 'POST', '/v1/chunk/token', 'null', 422, 'VALIDATION', /valid JSON object/],
    ['a missing field', 'POST', '/v1/chunk/token', {}, 422, 'VALIDATION', /Field required: add 'text'/],
    ['a number for text (no coercion)', 'POST', '/v1/chunk/token', { text: 7 }, 422, 'VALIDATION', /text must be a string or a list of strings \(got 7\)/],
    ['a string for an integer (no coercion)', 'POST', '/v1/chunk/token', { text: 'a', chunk_size: '5' }, 422, 'VALIDATION', /chunk_size must be integer/],
    ['a size below the minimum', 'POST', '/v1/chunk/token', { text: 'a', chunk_size: 0 }, 422, 'VALIDATION', /chunk_size must be >= 1/],
    ['an unknown offset unit', 'POST', '/v1/chunk/token', { text: 'a', offset_unit: 'bytes' }, 422, 'VALIDATION', /"codepoint" or "utf16" or "utf8"/],
    [
      'overlap not below size',
      'POST',
      '/v1/chunk/token',
      { text: 'a', chunk_size: 4, chunk_overlap: 4 },
      400,
      'BAD_REQUEST',
      /must be smaller than chunk_size/,
    ],
    [
      'an unknown tokenizer',
      'POST',
      '/v1/chunk/token',
      { text: 'a', tokenizer: 'cl100k' },
      400,
      'BAD_REQUEST',
      /Did you mean 'cl100k_base'\?.*Valid: character, word, byte, gpt2/,
    ],
    ['an unknown chunker', 'POST', '/v1/chunk/tokn', { text: 'a' }, 404, 'NOT_FOUND', /Did you mean '\/v1\/chunk\/token'\?/],
    ['an unknown route', 'GET', '/nothing/here', undefined, 404, 'NOT_FOUND', /GET \/ lists every route/],
    ['a wrong method', 'GET', '/v1/chunk/token', undefined, 405, 'METHOD_NOT_ALLOWED', /use POST/],
    ['a body over the limit', 'POST', '/v1/chunk/token', { text: 'x'.repeat(5000) }, 413, 'TOO_LARGE', /--max-body-bytes/],
  ];
  for (const [name, method, path, body, status, code, message] of cases) {
    test(name, async () => {
      const res = await app.request(method, path, body);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.code, code);
      const detail = typeof res.body.detail === 'string' ? res.body.detail : res.body.detail.map((d: { msg: string }) => d.msg).join('; ');
      assert.match(detail, message);
      assert.doesNotMatch(JSON.stringify(res.body), /node_modules|at .*\.(ts|js):\d+|\/work\//, 'no internals on the wire');
    });
  }

  test('422 details carry loc, msg and type for every invalid field at once', async () => {
    const res = await app.post('/v1/chunk/token', { text: 1, chunk_size: -1, tokenizer: 5 });
    assert.equal(res.status, 422);
    const locs = res.body.detail.map((d: { loc: string[] }) => d.loc.join('.')).sort();
    assert.deepEqual(locs, ['body.chunk_size', 'body.text', 'body.tokenizer']);
    for (const d of res.body.detail) assert.deepEqual(Object.keys(d), ['loc', 'msg', 'type']);
  });

  test('a 405 names the allowed methods in Allow', async () => {
    const res = await app.request('DELETE', '/v1/chunk/token');
    assert.equal(res.headers.get('allow'), 'POST');
  });
});

describe('request handling', () => {
  test('unknown keys are ignored and named in a header', async () => {
    const res = await app.post('/v1/chunk/token', { text: 'hello world', chunk_sise: 3, lang: 'en' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-chunkd-ignored-keys'), 'chunk_sise, lang');
    assert.equal(res.body.length, 1, 'the misspelt key had no effect');
  });

  test('tokenizer_or_token_counter is an alias of tokenizer; tokenizer wins when both are sent', async () => {
    const viaAlias = await app.post('/v1/chunk/token', { text: 'hello world again', chunk_size: 2, tokenizer_or_token_counter: 'word' });
    assert.deepEqual(
      viaAlias.body.map((c: { text: string }) => c.text),
      ['hello world ', 'again'],
    );
    assert.equal(viaAlias.headers.get('x-chunkd-ignored-keys'), null);
    const both = await app.post('/v1/chunk/token', { text: 'hello world again', chunk_size: 2, tokenizer: 'character', tokenizer_or_token_counter: 'word' });
    assert.equal(both.body[0].text, 'he');
  });

  test("return_type 'texts' answers the texts only, for one text and for a batch", async () => {
    const one = await app.post('/v1/chunk/token', { text: 'abcdef', chunk_size: 4, return_type: 'texts' });
    assert.deepEqual(one.body, ['abcd', 'ef']);
    const many = await app.post('/v1/chunk/token', { text: ['abcdef', ''], chunk_size: 4, return_type: 'texts' });
    assert.deepEqual(many.body, [['abcd', 'ef'], []]);
  });

  test('offsets are code points by default, UTF-16 or UTF-8 on request', async () => {
    const text = 'é🦛 x';
    const body = { text, chunk_size: 2 };
    const spans = async (unit?: string) =>
      ((await app.post('/v1/chunk/token', unit ? { ...body, offset_unit: unit } : body)).body as { start_index: number; end_index: number }[]).map((c) => [
        c.start_index,
        c.end_index,
      ]);
    assert.deepEqual(await spans(), [
      [0, 2],
      [2, 4],
    ]);
    assert.deepEqual(await spans('codepoint'), [
      [0, 2],
      [2, 4],
    ]);
    assert.deepEqual(await spans('utf16'), [
      [0, 3],
      [3, 5],
    ]);
    assert.deepEqual(await spans('utf8'), [
      [0, 6],
      [6, 8],
    ]);
  });

  test('a body with a form Content-Type is still read as JSON (curl -d sends one)', async () => {
    const res = await app.request('POST', '/v1/chunk/token', JSON.stringify({ text: 'abc' }), { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(res.status, 200);
    assert.equal(res.body[0].text, 'abc');
  });

  test('chunk ids are deterministic and differ for the same text at another position', async () => {
    const a = await app.post('/v1/chunk/token', { text: 'abab', chunk_size: 2 });
    const b = await app.post('/v1/chunk/token', { text: 'abab', chunk_size: 2 });
    assert.deepEqual(a.body, b.body);
    assert.equal(a.body[0].text, a.body[1].text);
    assert.notEqual(a.body[0].id, a.body[1].id);
  });
});

describe('meta routes', () => {
  test('GET /health', async () => {
    const res = await app.request('GET', '/health');
    assert.deepEqual([res.status, res.body], [200, { status: 'ok' }]);
  });

  test('GET / lists every served route, derived from the registry', async () => {
    const res = await app.request('GET', '/');
    const paths = res.body.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`);
    for (const p of app.booted.deps.registry.routed()) assert.ok(paths.includes(`POST ${p.route}`), p.route);
    for (const p of ['GET /health', 'GET /v1/plugins', 'GET /openapi.json']) assert.ok(paths.includes(p), p);
  });

  test('GET /v1/plugins describes each plugin: kind, route, schema with defaults, extras, availability', async () => {
    const res = await app.request('GET', '/v1/plugins');
    const token = res.body.find((p: { name: string }) => p.name === 'token');
    assert.equal(token.kind, 'chunker');
    assert.equal(token.route, '/v1/chunk/token');
    assert.equal(token.available, true);
    assert.deepEqual(token.missing, []);
    assert.equal(token.config.properties.chunk_size.default, 512);
    assert.equal(res.body.length, app.booted.deps.registry.list().length);
  });

  test('/docs and /redoc are served from the packages, with no CDN reference', async () => {
    for (const path of ['/docs', '/redoc']) {
      const page = await app.request('GET', path);
      assert.equal(page.status, 200);
      assert.match(page.headers.get('content-type') ?? '', /text\/html/);
      assert.doesNotMatch(page.body, /https?:\/\//, `${path} must not load anything from another host`);
      for (const [, src] of page.body.matchAll(/(?:src|href)="([^"]+)"/g)) {
        const asset = await app.request('GET', src);
        assert.equal(asset.status, 200, src);
        // The packages' bundles are large; our own Swagger UI start-up script (no inline script under the CSP) is small but must start it.
        if (src === '/docs/assets/init.js') assert.match(asset.body, /SwaggerUIBundle\(/, `${src} must start Swagger UI`);
        else assert.ok(asset.body.length > 10_000, `${src} looks empty`);
      }
    }
  });
});
