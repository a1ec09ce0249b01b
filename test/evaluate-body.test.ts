/**
 * A large POST /v1/evaluate body is parsed and checked in a worker (service/evaluation/body.ts):
 * with workers, a body of a megabyte of documents is never JSON.parse'd on the main thread (every
 * JSON.parse on this thread, where the app runs, is counted), and it answers exactly as the inline
 * server does: the same results, the same 400 for bad JSON, the same 422s, the same ignored keys.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/engine/index.js';
import { IGNORED_KEYS_HEADER } from '../kernel/request.js';
import { INLINE_BODY_MAX_BYTES } from '../server/middleware/body.js';
import { startApp, type TestApp } from './helpers/app.js';

const DOC = 'cats sleep dogs walk birds sing';
const token = (size: number) => [{ type: 'chunk' as const, chunker: 'token', config: { chunk_size: size } }];
const BIG = 'lorem ipsum dolor sit amet '.repeat(40_000); // about 1 MB
const body = (extra: Record<string, unknown> = {}) => ({
  documents: [
    { id: 'pets', text: DOC },
    { id: 'big', text: BIG },
  ],
  questions: [
    { question: 'sleep dogs', references: [{ document: 'pets', start_index: 5, end_index: 15 }] },
    { question: 'dolor sit', references: [{ document: 'big', start_index: 12, end_index: 21 }] },
  ],
  candidates: [token(100), token(400)],
  k: [1, 3],
  ...extra,
});
/** What this thread may JSON.parse for one pooled request: none of its body. */
const MAIN_PARSE_MAX_CHARS = 4 * 1024;

/** Characters of the largest string JSON.parse'd on this thread while `work` runs. */
async function largestParsedDuring<T>(work: () => Promise<T>): Promise<{ result: T; largest: number }> {
  const parse = JSON.parse;
  let largest = 0;
  JSON.parse = function (text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    largest = Math.max(largest, String(text).length);
    return parse.call(JSON, text, reviver);
  } as typeof JSON.parse;
  try {
    return { result: await work(), largest };
  } finally {
    JSON.parse = parse;
  }
}

async function send(app: TestApp, raw: string) {
  const res = await fetch(`${app.url}/v1/evaluate`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
  return { status: res.status, ignored: res.headers.get(IGNORED_KEYS_HEADER), text: Buffer.from(await res.arrayBuffer()).toString('utf8') };
}

const withoutTimes = (text: string) => (JSON.parse(text) as { results: { time_ms?: number }[] }).results.map(({ time_ms: _, ...r }) => r);

describe('a large evaluation body, with workers', () => {
  let pooled: TestApp;
  let inline: TestApp;
  before(async () => ([pooled, inline] = await Promise.all([startApp({ workers: '1' }), startApp()])));
  after(() => Promise.all([pooled?.close(), inline?.close()]));

  test('is parsed in a worker, never on the main thread, and scores as the inline server does', async () => {
    const raw = JSON.stringify(body({ note: 'an unknown key' }));
    assert.ok(raw.length > 16 * INLINE_BODY_MAX_BYTES);
    const pool = pooled.booted.deps.executor as WorkerPool;
    const before = { ...pool.tasksByKind };
    const { result: res, largest } = await largestParsedDuring(() => send(pooled, raw));
    assert.equal(res.status, 200, res.text.slice(0, 300));
    assert.ok(largest <= MAIN_PARSE_MAX_CHARS, `a string of ${largest} characters was JSON.parse'd on the main thread`);
    // One task parses the body, then one per candidate chunks and scores; nothing else runs in the pool.
    const delta = Object.fromEntries(Object.entries(pool.tasksByKind).map(([k, n]) => [k, n - before[k as keyof typeof before]]));
    assert.deepEqual(delta, { job: 3, run: 0 });
    assert.equal(res.ignored, 'note');
    const here = await send(inline, raw);
    assert.equal(here.status, 200);
    assert.deepEqual(withoutTimes(res.text), withoutTimes(here.text));
    assert.equal(withoutTimes(res.text).length, 4);
  });

  test('answers a bad body as the inline server does: 400 for JSON that is not, 422 naming the field or the key', async () => {
    const padded = (b: Record<string, unknown>) => JSON.stringify({ ...b, pad: 'x'.repeat(2 * INLINE_BODY_MAX_BYTES) });
    const cases = [
      `${JSON.stringify(body())} trailing`,
      padded(body({ retriever: 'nope' })),
      padded(body({ documents: 'none' })),
      padded(body({ k: [0] })),
      padded(body({ questions: [{ question: 'x', references: [{ document: 'missing', start_index: 0, end_index: 1 }] }] })),
      JSON.stringify(body()).replace('{', '{"__proto__": {"x": 1},'),
    ];
    for (const raw of cases) {
      const [a, b] = await Promise.all([send(pooled, raw), send(inline, raw)]);
      assert.ok(a.status >= 400 && a.status < 500, `${a.status} ${a.text.slice(0, 200)}`);
      assert.deepEqual(
        { status: a.status, body: JSON.parse(a.text), ignored: a.ignored },
        { status: b.status, body: JSON.parse(b.text), ignored: b.ignored },
        raw.slice(0, 80),
      );
    }
  });
});
