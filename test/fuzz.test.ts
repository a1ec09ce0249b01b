/**
 * Property tests with fast-check: whatever a client sends, no route answers 5xx; whatever unicode a
 * text holds, every chunker keeps the offset contract. Seeds are printed on failure for replay.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../kernel/chunk.js';
import { startApp, type TestApp } from './helpers/app.js';
import { startFakeLlm, type FakeLlm } from './helpers/fake-llm.js';
import { sliceIn } from './helpers/units.js';

let app: TestApp;
let llm: FakeLlm;
// Chunkers that call an LLM (slumber) run against a local fake chat-completions server, as in the conformance suite.
before(async () => {
  llm = await startFakeLlm();
  app = await startApp({ 'llm-base-url': llm.url, 'llm-max-calls': '100000' });
});
after(async () => {
  await app.close();
  await llm.close();
});

/** Texts built from the pieces that break offset arithmetic: astral characters, ZWJ sequences, combining marks, CRLF, lone surrogates. */
const nasty = fc.constantFrom('a', ' ', '\n', '\r\n', '\t', 'é', 'e\u0301', '日本', '🦛', '👨‍👩‍👧', '🇯🇵', '\u200d', '\ud800', '\udc00', '. ', '! ', '?', '。', '#', 'def ', '{', '}', '\u00a0');
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

const KEYS = ['text', 'chunks', 'chunk_size', 'chunk_overlap', 'tokenizer', 'tokenizer_or_token_counter', 'offset_unit', 'return_type', 'steps', 'name', 'config', 'type', 'chunker', 'refinery', 'description'];
const body = fc.oneof(fc.dictionary(fc.constantFrom(...KEYS), jsonValue, { maxKeys: 6 }), jsonValue);

describe('no input gives a 5xx', () => {
  test('random JSON bodies on every POST and PUT route', async () => {
    const routes = app.booted.app.routes.filter((r) => r.method === 'post' || r.method === 'put').map((r) => ({ method: r.method.toUpperCase(), path: r.path.replace(/:[a-z_]+/g, 'no-such-id') }));
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
