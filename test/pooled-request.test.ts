/**
 * A large chunk request is parsed, validated, chunked and serialized in a worker
 * (service/large-bodies/): its answer must be the inline route's answer byte for byte — status, the
 * headers a client sees, and body — for successes and for every kind of error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { WorkerPool } from '../kernel/engine/index.js';
import type { PipelineStore } from '../service/storage/store.js';
import { INLINE_BODY_MAX_BYTES as RAW_BODY_MIN_BYTES } from '../server/middleware/body.js';
import { startApp, type TestApp } from './helpers/app.js';
import { FIXTURES } from './helpers/fixtures.js';

const LIMITS = { 'max-body-bytes': String(3 * 1024 * 1024), 'max-text-chars': '1000000', 'max-texts': '5', 'max-chunks': '20000' };
/** Every fixture (CJK, emoji, CRLF, combining marks, repeats) over and over: well past the raw-body threshold. */
const BIG = Object.values(FIXTURES)
  .join('\n')
  .repeat(Math.ceil((2 * RAW_BODY_MIN_BYTES) / 1000));
const json = (v: unknown) => JSON.stringify(v);
const chunksOf = (text: string) =>
  [...text.matchAll(/[^]{1,500}/g)].map((m, i) => ({ text: m[0], start_index: i * 500, end_index: i * 500 + m[0].length, token_count: 1 }));

/** [status, what, path, raw body] */
const CASES: [number, string, string, string][] = [
  [200, 'one text, an unknown key reported', '/v1/chunk/token', json({ text: BIG, chunk_size: 64, tokenizer: 'cl100k_base', colour: 'red' })],
  [
    200,
    'a batch split across workers, utf8 offsets',
    '/v1/chunk/token',
    json({ text: [BIG, 'short', BIG.slice(7), ' \n'], chunk_size: 128, offset_unit: 'utf8' }),
  ],
  [200, 'a batch, return_type texts', '/v1/chunk/recursive', json({ text: [BIG.slice(0, 90_000), BIG.slice(3)], return_type: 'texts' })],
  [200, 'all-blank batch', '/v1/chunk/token', json({ text: [' '.repeat(70_000), '\n'.repeat(10)] })],
  [
    200,
    'sentence chunker, utf16 offsets, an alias',
    '/v1/chunk/sentence',
    json({ text: BIG, tokenizer_or_token_counter: 'character', chunk_size: 300, offset_unit: 'utf16' }),
  ],
  [200, 'a refinery on a list of lists', '/v1/refine/overlap', json({ chunks: [chunksOf(BIG), chunksOf(BIG.slice(11))], context_size: 0.25 })],
  [422, 'a refinery mixing lists and chunks (422)', '/v1/refine/overlap', json({ chunks: [chunksOf(BIG), chunksOf('abc')[0]] })],
  [200, 'a UTF-8 BOM before the JSON', '/v1/chunk/token', '\ufeff' + json({ text: BIG })],
  [200, 'leading JSON whitespace', '/v1/chunk/token', ' \r\n\t' + json({ text: BIG })],
  [422, 'a wrong type and a bad range (422 with loc)', '/v1/chunk/token', json({ text: BIG, chunk_size: 'big', offset_unit: 'bytes' })],
  [422, 'text missing (422)', '/v1/chunk/token', json({ txt: BIG })],
  [422, 'a batch item of the wrong type (422)', '/v1/chunk/token', json({ text: [BIG, 7] })],
  [422, 'an object body that is a list (422)', '/v1/chunk/token', json([BIG])],
  [
    400,
    'a config the plugin refuses (400), unknown key still reported',
    '/v1/chunk/token',
    json({ text: BIG, chunk_size: 8, chunk_overlap: 8, colour: 'red' }),
  ],
  [
    400,
    'a config the plugin refuses, in a batch split across workers (400)',
    '/v1/chunk/token',
    json({ text: [BIG, BIG], chunk_size: 8, chunk_overlap: 9, colour: 'red' }),
  ],
  [400, 'an unknown tokenizer (400)', '/v1/chunk/token', json({ text: BIG, tokenizer: 'no-such-tokenizer' })],
  [413, 'a text over --max-text-chars (413)', '/v1/chunk/token', json({ text: BIG.repeat(Math.ceil(1_000_001 / BIG.length)).slice(0, 1_000_001), colour: 1 })],
  [413, 'a batch over --max-texts (413)', '/v1/chunk/token', json({ text: [BIG, 'a', 'b', 'c', 'd', 'e'] })],
  [
    413,
    'more chunks than --max-chunks (413)',
    '/v1/refine/overlap',
    json({ chunks: Array.from({ length: 20_001 }, () => ({ text: 'a', start_index: 0, end_index: 1, token_count: 1 })) }),
  ],
  [413, 'a body over --max-body-bytes (413)', '/v1/chunk/token', json({ text: 'x'.repeat(3 * 1024 * 1024) })],
  [422, 'malformed JSON (422 json_invalid)', '/v1/chunk/token', json({ text: BIG }).slice(0, -1)],
  [422, 'a JSON string, not an object (422 json_invalid)', '/v1/chunk/token', json(BIG)],
  [422, 'a __proto__ key (422 json_invalid)', '/v1/chunk/token', `{"__proto__": {"x": 1}, "text": ${json(BIG)}}`],
];

/** Stored alike in both servers (same ids, so messages naming them agree). */
const PIPELINES = [
  {
    id: '00000000-0000-4000-8000-000000000001',
    name: 'token-overlap',
    steps: [
      { type: 'chunk', chunker: 'token', config: { chunk_size: 64 } },
      { type: 'refine', refinery: 'overlap', config: { context_size: 8 } },
    ],
  },
  {
    id: '00000000-0000-4000-8000-000000000002',
    name: 'tiny-chunks',
    steps: [
      { type: 'chunk', chunker: 'token', config: { tokenizer: 'character', chunk_size: 4 } },
      { type: 'refine', refinery: 'overlap', config: {} },
    ],
  },
  {
    id: '00000000-0000-4000-8000-000000000003',
    name: 'stale',
    steps: [
      { type: 'chunk', chunker: 'token', config: {} },
      { type: 'refine', refinery: 'gone', config: {} },
    ],
  },
];
const run = (i: number) => `/v1/pipelines/${PIPELINES[i]!.id}/execute`;

const PIPELINE_CASES: [number, string, string, string][] = [
  [200, 'one text through chunk and refine steps, an unknown key reported', run(0), json({ text: BIG, colour: 'red' })],
  [200, 'return_type texts, utf8 offsets', run(0), json({ text: BIG, return_type: 'texts', offset_unit: 'utf8' })],
  [200, 'a batch worth splitting (one job per group and step)', run(0), json({ text: [BIG, BIG.slice(5)], colour: 1 })],
  [
    200,
    'a split batch, return_type texts, blank texts, utf16 offsets',
    run(0),
    json({ text: [BIG, ' ', BIG.slice(9), ''], return_type: 'texts', offset_unit: 'utf16' }),
  ],
  [413, 'a split batch with more chunks between steps than --max-chunks', run(1), json({ text: [BIG, BIG.slice(3)] })],
  [400, 'a split batch reaching a step whose plugin this server lacks', run(2), json({ text: [BIG, BIG.slice(1)], colour: 1 })],
  [413, 'a split batch over --max-texts', run(0), json({ text: [BIG, 'a', 'b', 'c', 'd', 'e'] })],
  [422, 'a wrong type, an unknown key still reported', run(0), json({ text: BIG, offset_unit: 'bytes', colour: 1 })],
  [404, 'an unknown pipeline', '/v1/pipelines/nope/execute', json({ text: BIG })],
  [422, 'an unknown pipeline and malformed JSON: the JSON error first', '/v1/pipelines/nope/execute', json({ text: BIG }).slice(1)],
  [400, 'a step whose plugin this server lacks', run(2), json({ text: BIG })],
  [413, 'more chunks between steps than --max-chunks', run(1), json({ text: BIG })],
  [413, 'a text over --max-text-chars', run(0), json({ text: BIG.repeat(Math.ceil(1_000_001 / BIG.length)) })],
];

/** What a client sees: status, the headers that describe the answer, and the body's bytes. */
async function send(app: TestApp, path: string, body: string) {
  const res = await fetch(app.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const headers = ['content-type', 'content-length', 'transfer-encoding', 'x-chunkd-ignored-keys'].map((h) => [h, res.headers.get(h)]);
  return { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
}

describe('a large request answered by a worker is byte-identical to the inline answer', () => {
  let pooled: TestApp;
  let inline: TestApp;
  let pool: WorkerPool;
  /** Tasks the pool ran (its own counter): a request's job, and one task per group of documents. */
  const tasks = () => pool.tasksRun;
  before(async () => {
    [pooled, inline] = await Promise.all([startApp({ ...LIMITS, workers: '2' }), startApp({ ...LIMITS, workers: '0' })]);
    for (const app of [pooled, inline]) {
      const store = app.booted.deps.services.pipelines;
      for (const p of PIPELINES)
        await store.create({ ...p, description: null, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z' } as never);
    }
    pool = pooled.booted.deps.executor as WorkerPool;
  });
  after(() => Promise.all([pooled.close(), inline.close()]));

  for (const [status, what, path, body] of [...CASES, ...PIPELINE_CASES]) {
    test(what, async () => {
      assert.ok(Buffer.byteLength(body) >= RAW_BODY_MIN_BYTES, 'the body is large enough for the raw path');
      const before = tasks();
      const [a, b] = await Promise.all([send(pooled, path, body), send(inline, path, body)]);
      assert.deepEqual(a.headers, b.headers);
      assert.equal(a.status, b.status, a.body.toString().slice(0, 300));
      assert.equal(a.status, status, a.body.toString().slice(0, 300));
      assert.ok(a.body.equals(b.body), `bodies differ: ${a.body.toString().slice(0, 200)} vs ${b.body.toString().slice(0, 200)}`);
      // The body-size 413 is answered while reading, before any worker is asked.
      if (!/max-body-bytes/.test(what)) assert.ok(tasks() > before, 'the request went to a worker');
    });
  }

  test("a large batch is spread over the pool's threads, one task per group after the request's", async () => {
    for (const [path, body, expected] of [
      ['/v1/chunk/token', json({ text: [BIG, BIG.slice(1)] }), 3],
      ['/v1/refine/overlap', json({ chunks: [chunksOf(BIG), chunksOf(BIG.slice(1))] }), 3],
      // Two steps (chunk, refine) on two groups: every step of a group in one task.
      [run(0), json({ text: [BIG, BIG.slice(1)] }), 3],
    ] as const) {
      const before = tasks();
      assert.equal((await send(pooled, path, body)).status, 200);
      assert.equal(tasks() - before, expected, path);
    }
  });

  test('a large body without a Content-Length (chunked) or compressed goes to a worker too, same answer', async () => {
    const body = json({ text: BIG, chunk_size: 64, colour: 'red' });
    const expected = await send(inline, '/v1/chunk/token', body);
    assert.equal(expected.status, 200);
    for (const framing of ['chunked', 'gzip'] as const) {
      const before = tasks();
      const bytes = framing === 'gzip' ? gzipSync(body) : Buffer.from(body);
      const headers: Record<string, string> = { 'content-type': 'application/json', ...(framing === 'gzip' ? { 'content-encoding': 'gzip' } : {}) };
      // A stream body: fetch sends it chunked, with no Content-Length.
      const stream = new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) });
      const res = await fetch(pooled.url + '/v1/chunk/token', {
        method: 'POST',
        headers,
        body: framing === 'chunked' ? stream : bytes,
        duplex: 'half',
      } as RequestInit);
      assert.equal(res.status, 200, framing);
      assert.equal(res.headers.get('x-chunkd-ignored-keys'), 'colour');
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(expected.body), framing);
      assert.ok(tasks() > before, `${framing}: the request went to a worker`);
    }
  });

  test('a small request stays on the inline path', async () => {
    const before = tasks();
    const a = await send(pooled, '/v1/chunk/token', json({ text: FIXTURES.emoji, colour: 1 }));
    const b = await send(inline, '/v1/chunk/token', json({ text: FIXTURES.emoji, colour: 1 }));
    assert.equal(a.status, 200);
    assert.deepEqual([a.headers, a.body.toString()], [b.headers, b.body.toString()]);
    assert.equal(tasks(), before);
  });
});
