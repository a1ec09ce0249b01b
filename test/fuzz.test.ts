/**
 * Property tests with fast-check: whatever a client sends, no route answers 5xx; whatever unicode a
 * text holds, every chunker keeps the offset contract. Seeds are printed on failure for replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import type { Chunk } from '../kernel/chunk.js';
import type { TestApp } from './helpers/app.js';
import { startAppWithFakeLlm } from './helpers/fake-llm.js';
import { sliceIn } from './helpers/units.js';

let app: TestApp;
// Plugins that call an LLM (slumber) run against a local fake chat-completions server, configured as an operator would.
before(async () => (app = await startAppWithFakeLlm()));
after(() => app.close());

/** Texts built from the pieces that break offset arithmetic: astral characters, ZWJ sequences, combining marks, CRLF, lone surrogates. */
const nasty = fc.constantFrom(
  'a',
  ' ',
  '\n',
  '\r\n',
  '\t',
  'é',
  'e\u0301',
  '日本',
  '🦛',
  '👨‍👩‍👧',
  '🇯🇵',
  '\u200d',
  '\ud800',
  '\udc00',
  '. ',
  '! ',
  '?',
  '。',
  '#',
  'def ',
  '{',
  '}',
  '\u00a0',
);
const nastyText = fc.array(fc.oneof(nasty, fc.string({ unit: 'grapheme', maxLength: 6 })), { maxLength: 40 }).map((parts) => parts.join(''));

const chunkers = () => app.booted.deps.registry.list('chunker').filter((p) => p.missing.length === 0);

describe('offsets hold for any text', () => {
  test('every chunker, every unit, small chunk sizes', async () => {
    for (const plugin of chunkers()) {
      const sized = plugin.configKeys.includes('chunk_size');
      await fc.assert(
        fc.asyncProperty(nastyText, fc.integer({ min: 1, max: 12 }), fc.constantFrom('codepoint', 'utf16', 'utf8'), async (text, size, unit) => {
          const res = await app.post(plugin.route, { text, offset_unit: unit, ...(sized ? { chunk_size: size } : {}) });
          assert.equal(res.status, 200, `${plugin.name}: ${JSON.stringify(res.body)}`);
          for (const c of res.body as Chunk[]) {
            if (unit !== 'utf8' || text.isWellFormed()) assert.equal(sliceIn(text, c.start_index, c.end_index, unit), c.text, plugin.name);
            assert.ok(c.text.length > 0);
          }
        }),
        { numRuns: 60 },
      );
    }
  });
});

/** JSON values of every shape, biased towards the keys and types the routes know. */
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -3, max: 1e6 }),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    nastyText,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('text', 'chunks', 'chunk_size', 'tokenizer', 'x', 'id', 'start_index'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

const KEYS = [
  'text',
  'chunks',
  'chunk_size',
  'chunk_overlap',
  'tokenizer',
  'tokenizer_or_token_counter',
  'offset_unit',
  'return_type',
  'steps',
  'name',
  'config',
  'type',
  'chunker',
  'refinery',
  'description',
];
const body = fc.oneof(fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 6 }), jsonValue);

describe('no input gives a 5xx', () => {
  test('random JSON bodies on every POST and PUT route', async () => {
    const routes = app.booted.app.routes
      .filter((r) => r.method === 'post' || r.method === 'put')
      .map((r) => ({ method: r.method.toUpperCase(), path: r.path.replace(/:[a-z_]+/g, 'no-such-id') }));
    assert.ok(routes.length > 0);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, async (route, b) => {
        const res = await app.request(route.method, route.path, b);
        assert.ok(res.status < 500, `${route.method} ${route.path} ${JSON.stringify(b)} → ${res.status} ${JSON.stringify(res.body)}`);
        assert.equal(typeof res.body.detail === 'undefined' || typeof res.body.code === 'string', true);
      }),
      { numRuns: 300 },
    );
  });

  test('random bytes as a body', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 64 }), async (raw) => {
        const res = await app.request('POST', '/v1/chunk/token', raw);
        assert.ok(res.status < 500, `${JSON.stringify(raw)} → ${res.status}`);
      }),
      { numRuns: 100 },
    );
  });
});

/**
 * The body classes that once gave 500s, generated across every route that reads a body (pipelines
 * included, with an id that exists and one that does not): nesting up to 30,000 levels, keys from
 * alphabets no header can carry as is, number literals at and past the edges of a double, and
 * Content-Encodings known and unknown. Every answer is a 2xx, or a 4xx with the error envelope.
 */
describe('hostile bodies on every route: never a 5xx, always the envelope', () => {
  const nest = (levels: number, inner: string) => '['.repeat(levels) + inner + ']'.repeat(levels);
  const depth = fc.oneof(fc.integer({ min: 0, max: 80 }), fc.integer({ min: 80, max: 30_000 }));
  const NUMBERS = [
    '1e400',
    '-1e400',
    '-0',
    '0',
    '1e-400',
    '-1e-400',
    '1e308',
    '1.7976931348623157e308',
    '9007199254740993',
    '123456789012345678901234567890',
    '-123456789012345678901234567890',
    '0.5',
    '4',
    '1e2',
    '5e-324',
  ];
  const number = fc.constantFrom(...NUMBERS);
  const keyChar = fc.oneof(
    fc.constantFrom('\r', '\n', '\r\n', '\u0000', ',', '%', ' ', 'é', 'ß', 'ключ', '日本', '🦛', '\u2028', '\ud800', 'a', '_'),
    fc.string({ unit: 'binary', maxLength: 3 }),
  );
  const hostileKey = fc.array(keyChar, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''));
  const FIELDS = [
    'text',
    'chunks',
    'chunk_size',
    'chunk_overlap',
    'tokenizer',
    'delim',
    'similarity_window',
    'context_size',
    'name',
    'description',
    'steps',
    'offset_unit',
    'return_type',
  ];
  const field = fc.oneof({ arbitrary: fc.constantFrom(...FIELDS), weight: 3 }, hostileKey);
  /** A JSON value text: a number literal, a nested list holding one, a string, or a chunk or step whose fields hold one. */
  const slot = fc.oneof(
    number,
    fc.tuple(depth, number).map(([d, n]) => nest(d, n)),
    fc.tuple(depth, fc.constantFrom('"a"', '{}', '')).map(([d, inner]) => nest(d, inner)),
    number.map((n) => `[{"text": "a", "start_index": 0, "end_index": ${n}, "token_count": 1}]`),
    fc.tuple(number, depth).map(([n, d]) => `[{"type": "chunk", "chunker": "token", "config": {"chunk_size": ${n}, "x": ${nest(d, '')}}}]`),
    fc.constant('"First sentence. Second one."'),
  );
  const body = fc
    .array(fc.tuple(field, slot), { minLength: 1, maxLength: 4 })
    .map((pairs) => `{${pairs.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(', ')}}`);
  const ENCODINGS = ['identity', 'gzip', 'deflate', 'br', 'xyz', 'GZIP', 'gzip, br', 'compress', ''];
  const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

  test('nesting, key alphabets, number edges and content encodings on every POST, PUT and DELETE route', async () => {
    const created = await app.post('/v1/pipelines', { name: `fuzz-${Date.now()}`, steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 8 } }] });
    assert.equal(created.status, 201);
    const routes = app.booted.app.routes
      .filter((r) => r.method === 'post' || r.method === 'put' || r.method === 'delete')
      // DELETE only on an id that does not exist: the fixture must survive for the other cases.
      .flatMap((r) =>
        r.path.includes(':')
          ? (r.method === 'delete' ? ['no-such-id'] : [created.body.id, 'no-such-id']).map((id) => ({
              method: r.method.toUpperCase(),
              path: r.path.replace(/:[a-z_]+/g, id),
            }))
          : [{ method: r.method.toUpperCase(), path: r.path }],
      );
    assert.ok(
      routes.some((r) => r.path.includes('/v1/pipelines/') && r.method === 'POST'),
      'pipeline execute is among the routes',
    );
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), body, fc.constantFrom(...ENCODINGS), async (route, text, encoding) => {
        const raw = Buffer.from(text);
        const headers: Record<string, string> = { 'content-type': 'application/json' };
        if (encoding) headers['content-encoding'] = encoding;
        const res = await fetch(app.url + route.path, { method: route.method, headers, body: encoders[encoding]?.(raw) ?? raw });
        const answer = await res.text();
        const where = `${route.method} ${route.path} [${encoding}] ${text.slice(0, 300)} → ${res.status} ${answer.slice(0, 300)}`;
        assert.ok(res.status < 500, where);
        seen.add(res.status);
        if (res.status >= 400) {
          const parsed = JSON.parse(answer) as { detail?: unknown; code?: unknown };
          assert.equal(typeof parsed.code, 'string', where);
          assert.ok(typeof parsed.detail === 'string' || Array.isArray(parsed.detail), where);
        }
        const ignored = res.headers.get('x-chunkd-ignored-keys');
        if (ignored !== null) assert.match(ignored, /^[\x20-\x7e]*$/, where);
      }),
      { numRuns: 250 },
    );
    for (const status of [415, 422]) assert.ok(seen.has(status), `no case answered ${status}: the generators miss a class`);
  });
});
