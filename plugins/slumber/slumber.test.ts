/**
 * The slumber chunker against a local OpenAI-compatible server (test/helpers/fake-llm.ts) that
 * records what it is sent: the prompt and request shape, the windows and the call budget,
 * retries, timeouts, unusable answers, an LLM that is down or refuses, the request's abort
 * signal, and the body Chonkie's clients send. No outbound network; nothing is timed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../../kernel/chunk.js';
import { isChunkdError } from '../../kernel/errors.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { startApp, type TestApp } from '../../test/helpers/app.js';
import { passagesOf, startFakeLlm, type FakeLlm } from '../../test/helpers/fake-llm.js';
import { ATTEMPTS } from './client.js';
import { create } from './impl.js';
import { SlumberConfig } from './index.js';
import { parseSplitIndex } from './prompt.js';
import { leastQuestions, windowEnd } from './windows.js';
import { withEnv } from '../../test/helpers/env.js';

const KEY = 'sk-test-0123456789';
const MAX_CALLS = 6;
const dir = mkdtempSync(join(tmpdir(), 'chunkd-slumber-'));
const keyFile = join(dir, 'llm.key');
writeFileSync(keyFile, `${KEY}\n`);

let llm: FakeLlm;
let app: TestApp;
before(async () => {
  llm = await startFakeLlm();
  app = await startApp({ 'llm-base-url': `${llm.url}/`, 'llm-model': 'tiny-llm', 'llm-api-key-file': keyFile, 'llm-max-calls': String(MAX_CALLS) });
});
after(async () => {
  await app.close();
  await llm.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Three topics: a heading (2 words) and two paragraphs of 8 words. With the word tokenizer,
 * candidate_size 8 and no minimum length, every heading and paragraph is one candidate.
 */
const SECTIONS = [
  '# Tides\n\nThe moon pulls the oceans toward it daily.\n\nWater rises and falls twice in one day.\n\n',
  '# Bread\n\nFlour water salt and yeast make simple bread.\n\nThe dough must rest before it goes in.\n\n',
  '# Chess\n\nEach player moves one piece per turn only.\n\nA king in check must escape at once.',
];
const TEXT = SECTIONS.join('');
const WORDS = { tokenizer: 'word', candidate_size: 8, min_characters_per_chunk: 1 };

const slumber = (body: Record<string, unknown>) => app.post('/v1/chunk/slumber', body);
/** The requests the fake received during fn. */
async function recording<T>(fn: () => Promise<T>): Promise<[T, FakeLlm['requests']]> {
  const from = llm.requests.length;
  const out = await fn();
  return [out, llm.requests.slice(from)];
}
function assertTiles(text: string, chunks: Chunk[]): void {
  let at = 0;
  for (const c of chunks) {
    assert.equal(c.start_index, at, `gap or overlap before ${JSON.stringify(c.text)}`);
    assert.equal(text.slice(c.start_index, c.end_index), c.text); // ASCII: code points = UTF-16
    at = c.end_index;
  }
  assert.equal(at, text.length);
}
const splitBy = (chunks: Chunk[]) => chunks.map((c) => (c.metadata as { split_by: string }).split_by);

describe('split points come from the LLM', () => {
  test('each chunk ends where the LLM says the next topic starts', async () => {
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.map((c: Chunk) => c.text),
      SECTIONS,
    );
    assertTiles(TEXT, res.body);
    assert.deepEqual(splitBy(res.body), ['llm', 'llm', 'llm']);
    // One question per chunk; each window starts at the candidate the last answer named.
    assert.deepEqual(
      sent.map((r) => passagesOf(r.body.messages[1].content).length),
      [9, 6, 3],
    );
  });

  test('the request: model, key, structured output, the numbered passages of the window', async () => {
    const [, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    const first = sent[0]!;
    assert.equal(first.url, '/v1/chat/completions'); // a trailing slash on the base URL is dropped
    assert.equal(first.headers.authorization, `Bearer ${KEY}`);
    assert.equal(first.body.model, 'tiny-llm');
    assert.equal(first.body.temperature, 0);
    assert.deepEqual(
      first.body.messages.map((m: { role: string }) => m.role),
      ['system', 'user'],
    );
    const prompt: string = first.body.messages[1].content;
    assert.deepEqual(passagesOf(prompt), [
      '# Tides',
      'The moon pulls the oceans toward it daily.',
      'Water rises and falls twice in one day.',
      '# Bread',
      'Flour water salt and yeast make simple bread.',
      'The dough must rest before it goes in.',
      '# Chess',
      'Each player moves one piece per turn only.',
      'A king in check must escape at once.',
    ]);
    assert.match(prompt, /between 1 and 9: answer 9 when all the passages continue one topic/);
    assert.match(prompt, /\{"split_index": <number>\}/);
    const format = first.body.response_format;
    assert.equal(format.type, 'json_schema');
    assert.deepEqual(format.json_schema.schema.properties.split_index, { type: 'integer', minimum: 1, maximum: 9 });
    assert.deepEqual(format.json_schema.schema.required, ['split_index']);
  });

  test('the key comes from CHUNKD_LLM_API_KEY when no key file is set; no key, no Authorization header', async () => {
    const one = (env: Record<string, string | undefined>) => withEnv(env, () => recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 })));
    const [, withKey] = await one({ CHUNKD_LLM_API_KEY_FILE: undefined, CHUNKD_LLM_API_KEY: 'env-key' });
    assert.equal(withKey[0]!.headers.authorization, 'Bearer env-key');
    const [, without] = await one({ CHUNKD_LLM_API_KEY_FILE: undefined, CHUNKD_LLM_API_KEY: undefined, CHUNKD_LLM_MODEL: undefined });
    assert.equal(without[0]!.headers.authorization, undefined);
    assert.equal('model' in without[0]!.body, false, 'no model configured: the field is left out');
  });

  test('windows hold at most chunk_size tokens, and so does every chunk', async () => {
    const words = await loadTokenizer('word');
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 20 }));
    assert.equal(res.status, 200);
    assertTiles(TEXT, res.body);
    for (const c of res.body as Chunk[]) assert.ok(c.token_count <= 20 && words.count(c.text) === c.token_count, JSON.stringify(c));
    assert.equal(passagesOf(sent[0]!.body.messages[1].content).length, 4, '2 + 8 + 8 + 2 words fill the first window exactly');
    assert.ok(sent.length > 0);
    for (const r of sent) {
      const passages = passagesOf(r.body.messages[1].content);
      assert.ok(passages.length >= 2, 'a window of one candidate needs no question');
      assert.ok(passages.reduce((n, p) => n + words.count(p), 0) <= 20);
    }
  });

  test('candidate_size above chunk_size: candidates are cut to chunk_size', async () => {
    const res = await slumber({ text: TEXT, tokenizer: 'word', chunk_size: 5, candidate_size: 128 });
    assert.equal(res.status, 200);
    assertTiles(TEXT, res.body);
    assert.ok((res.body as Chunk[]).every((c) => c.token_count <= 5));
  });
});

describe('answers that cannot be used fall back to the window end', () => {
  const table: [string, number | undefined][] = [
    ['{"split_index": 2}', 2],
    ['{"split_index": 4}', 4],
    ['{"split_index": "3"}', 3],
    ['Sure! ```json\n{"split_index": 2}\n```', 2],
    ['{"split_index": 0}', undefined],
    ['{"split_index": 5}', undefined],
    ['{"split_index": -1}', undefined],
    ['{"split_index": 1.5}', undefined],
    ['{"split_index": null}', undefined],
    ['{"index": 2}', undefined],
    ['[2]', undefined],
    ['2', undefined],
    ['not json at all', undefined],
    ['', undefined],
  ];
  for (const [content, expected] of table) {
    test(`${JSON.stringify(content)} in a window of 4 → ${expected ?? 'fallback'}`, () => assert.equal(parseSplitIndex(content, 4), expected));
  }

  test('over HTTP: a malformed and an out-of-range answer each give a chunk ending at its window end', async () => {
    // chunk_size 18: windows of three candidates (2 + 8 + 8 words), i.e. one section each.
    llm.script({ content: '{"split_index": oops' }, { content: '{"split_index": 99}' });
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 18 }));
    assert.equal(res.status, 200);
    assert.deepEqual(
      sent.map((r) => passagesOf(r.body.messages[1].content).length),
      [3, 3, 3],
    );
    assert.deepEqual(
      res.body.map((c: Chunk) => c.text),
      SECTIONS,
    );
    assert.deepEqual(splitBy(res.body), ['fallback', 'fallback', 'llm']);
  });

  test('property: whatever the answers, chunks tile the text and fit chunk_size', async () => {
    const words = await loadTokenizer('word');
    const answer = fc.oneof(
      fc.integer({ min: -3, max: 12 }).map((n) => JSON.stringify({ split_index: n })),
      fc.string({ maxLength: 12 }),
      fc.constantFrom('{"split_index": "2"}', '```{"split_index": 1}```', '{}', 'null'),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(answer, { minLength: 1, maxLength: 12 }), fc.integer({ min: 10, max: 40 }), async (answers, size) => {
        llm.script(...answers.map((content) => ({ content })));
        const res = await slumber({ text: TEXT, ...WORDS, chunk_size: size });
        llm.unscript();
        assert.equal(res.status, 200, JSON.stringify(res.body));
        assertTiles(TEXT, res.body);
        for (const c of res.body as Chunk[]) assert.ok(c.token_count <= size && words.count(c.text) === c.token_count, JSON.stringify(c));
      }),
      { numRuns: 25 },
    );
  });
});

describe('a bounded number of LLM calls per request', () => {
  const many = Array.from({ length: 5 }, () => TEXT).join('\n\n'); // 45 candidates, 15 sections

  test('windows: the fewest questions a text costs', () => {
    const spans = [3, 3, 3, 9, 2, 2].map((tokenCount, i) => ({ start: i, end: i + 1, tokenCount }));
    assert.equal(windowEnd(spans, 0, 9), 3);
    assert.equal(windowEnd(spans, 3, 9), 4, 'a candidate that fills the window alone');
    assert.equal(windowEnd(spans, 4, 9), 6);
    assert.equal(leastQuestions(spans, 9), 2, 'windows [0,3) and [4,6) ask; [3,4) does not');
  });

  test('a text that needs more questions than --llm-max-calls is refused up front (413), nothing asked', async () => {
    const [res, sent] = await recording(() => slumber({ text: many, ...WORDS, chunk_size: 18 }));
    assert.equal(res.status, 413);
    assert.equal(res.body.code, 'TOO_LARGE');
    assert.match(res.body.detail, /needs at least 15 LLM questions/);
    assert.match(res.body.detail, new RegExp(`at most ${MAX_CALLS} per request`));
    assert.match(res.body.detail, /--llm-max-calls/);
    assert.equal(sent.length, 0);
  });

  test('the budget is per request: a batch shares it', async () => {
    const [one, asked] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 18 }));
    assert.equal(one.status, 200);
    assert.equal(asked.length, 3);
    const [res, sent] = await recording(() => slumber({ text: [TEXT, TEXT, TEXT], ...WORDS, chunk_size: 18 }));
    assert.equal(res.status, 413, 'three texts of three questions each exceed 6');
    assert.equal(sent.length, 6, 'the first two texts were asked about, the third refused before asking');
  });

  test('answers that split early cost more questions: past the budget, the rest is cut by window, marked budget', async () => {
    // chunk_size 200: one window, so one question at least; answering 1 every time would need eight.
    llm.script(...Array.from({ length: 10 }, () => ({ content: '{"split_index": 1}' })));
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    llm.unscript();
    assert.equal(res.status, 200);
    assert.equal(sent.length, MAX_CALLS);
    assertTiles(TEXT, res.body);
    assert.deepEqual(splitBy(res.body), [...Array(MAX_CALLS).fill('llm'), 'budget']);
    assert.equal(res.body.at(-1).text, SECTIONS[2], 'the last three candidates, one window');
  });
});

describe('retries, timeouts and failures', () => {
  test('500 and 429 are retried (Retry-After honoured) and the answer is the same as without them', async () => {
    const clean = await slumber({ text: TEXT, ...WORDS, chunk_size: 200 });
    llm.script({ status: 500, body: '{"error": "busy"}' }, { status: 429, headers: { 'retry-after': '0' } });
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, clean.body);
    assert.equal(sent.length, 3 + 2, 'the first question three times, then the two others');
    assert.deepEqual(sent[1]!.body, sent[0]!.body);
    assert.deepEqual(sent[2]!.body, sent[0]!.body);
  });

  test(`a server that keeps failing: ${ATTEMPTS} tries, then 502 UPSTREAM naming --llm-base-url`, async () => {
    llm.script(...Array.from({ length: ATTEMPTS }, () => ({ status: 503, headers: { 'retry-after': '0' } })));
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'UPSTREAM');
    assert.match(res.body.detail, /failed 4 times \(last: HTTP 503\)/);
    assert.match(res.body.detail, /--llm-base-url/);
    assert.equal(sent.length, ATTEMPTS);
  });

  test('a call with no answer within --llm-timeout-ms is abandoned and retried; all time out → 502', async () => {
    llm.script(...Array.from({ length: ATTEMPTS }, () => ({ hang: true as const })));
    const [res, sent] = await withEnv({ CHUNKD_LLM_TIMEOUT_MS: '50' }, () => recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 })));
    assert.equal(res.status, 502);
    assert.match(res.body.detail, /no answer within 50 ms \(--llm-timeout-ms\)/);
    assert.equal(sent.length, ATTEMPTS);
  });

  test('a hung call then a good one: the retry succeeds', async () => {
    llm.script({ hang: true });
    const [res, sent] = await withEnv({ CHUNKD_LLM_TIMEOUT_MS: '1000' }, () => recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 })));
    assert.equal(res.status, 200);
    assert.equal(sent[0]!.abandoned, true);
    assert.deepEqual(
      res.body.map((c: Chunk) => c.text),
      SECTIONS,
    );
    assert.equal(sent.length, 4);
  });

  test('LLM down (connection refused): 502 UPSTREAM naming --llm-base-url', async () => {
    const port = await closedPort();
    const res = await withEnv({ CHUNKD_LLM_BASE_URL: `http://127.0.0.1:${port}/v1` }, () => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 502);
    assert.equal(res.body.code, 'UPSTREAM');
    assert.match(res.body.detail, new RegExp(`127\\.0\\.0\\.1:${port}/v1 failed 4 times \\(last: ECONNREFUSED\\)`));
    assert.match(res.body.detail, /--llm-base-url \(CHUNKD_LLM_BASE_URL\)/);
  });

  test('a refusal (401, 404) is not retried; the message carries the server’s own and says what to check', async () => {
    llm.script({ status: 401, body: '{"error": {"message": "Invalid API key"}}' });
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 502);
    assert.equal(sent.length, 1);
    assert.match(res.body.detail, /HTTP 401: Invalid API key/);
    assert.match(res.body.detail, /--llm-api-key-file or CHUNKD_LLM_API_KEY/);
    const wrongPath = await withEnv({ CHUNKD_LLM_BASE_URL: llm.url.replace(/\/v1$/, '') }, () => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(wrongPath.status, 502);
    assert.match(wrongPath.body.detail, /HTTP 404: no route POST \/chat\/completions.*ends at the API root/);
  });

  test('a server that refuses json_schema is asked again in JSON mode', async () => {
    llm.script({ status: 400, body: '{"error": {"message": "response_format type json_schema is not supported"}}' });
    const [res, sent] = await recording(() => slumber({ text: TEXT, ...WORDS, chunk_size: 200 }));
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.map((c: Chunk) => c.text),
      SECTIONS,
    );
    assert.equal(sent[0]!.body.response_format.type, 'json_schema');
    assert.deepEqual(sent[1]!.body.response_format, { type: 'json_object' });
    assert.deepEqual({ ...sent[1]!.body, response_format: null }, { ...sent[0]!.body, response_format: null }, 'only the format changes');
    assert.equal(sent[2]!.body.response_format.type, 'json_schema', 'each question starts with the schema');
  });

  test('a 200 that is not a chat completion is a 502 (a wrong server), not a silent fallback', async () => {
    for (const body of ['<html>hello</html>', '{"data": []}', '{"choices": [{"message": {"content": null}}]}']) {
      llm.script({ status: 200, body });
      const res = await slumber({ text: TEXT, ...WORDS, chunk_size: 200 });
      assert.equal(res.status, 502, body);
      assert.match(res.body.detail, /without choices\[0\]\.message\.content/);
    }
  });

  test('the request’s abort signal stops a pending call, with no retry', async () => {
    const impl = await create(defaults({ ...WORDS, chunk_size: 200 }));
    llm.script({ hang: true });
    const from = llm.requests.length;
    const controller = new AbortController();
    const pending = impl.chunk(TEXT, { signal: controller.signal });
    while (llm.requests.length === from) await new Promise((r) => setImmediate(r));
    controller.abort(new Error('deadline'));
    await assert.rejects(Promise.resolve(pending), /deadline/);
    await new Promise((r) => setImmediate(r));
    assert.equal(llm.requests.length, from + 1);
  });

  // The LLM timeout is ten minutes: only the request's signal can end the call within the test's limit.
  test('over HTTP: the request deadline (504) aborts the pending LLM call', { timeout: 120_000 }, async () => {
    const timed = await startApp({
      'llm-base-url': llm.url,
      'llm-api-key-file': keyFile,
      'llm-max-calls': String(MAX_CALLS),
      'llm-timeout-ms': '600000',
      'request-timeout-ms': '300',
    });
    try {
      llm.script({ hang: true });
      const from = llm.requests.length;
      const res = await timed.post('/v1/chunk/slumber', { text: TEXT, ...WORDS, chunk_size: 200 });
      assert.equal(res.status, 504);
      while (!llm.requests[from]?.abandoned) await new Promise((r) => setTimeout(r, 10));
      assert.equal(llm.requests.length, from + 1);
    } finally {
      await timed.close();
    }
  });

  test('no LLM configured: 501 NOT_CONFIGURED saying which settings to set', async () => {
    const res = await withEnv({ CHUNKD_LLM_BASE_URL: undefined }, () => slumber({ text: TEXT }));
    assert.equal(res.status, 501);
    assert.equal(res.body.code, 'NOT_CONFIGURED');
    assert.match(res.body.detail, /--llm-base-url \(CHUNKD_LLM_BASE_URL\)/);
    assert.match(res.body.detail, /--llm-model/);
  });
});

describe('the wire', () => {
  test("Chonkie's clients: the exact body they send gives chunks they parse (a text, and a list of texts)", async () => {
    const body = { tokenizer_or_token_counter: 'gpt2', chunk_size: 1024, recipe: 'default', lang: 'en', candidate_size: 128, min_characters_per_chunk: 24 };
    const long = Array.from({ length: 30 }, () => TEXT).join('\n\n'); // about two windows of gpt2 tokens
    for (const text of [long, [TEXT, long]]) {
      const res = await slumber({ text, ...body });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const lists: Chunk[][] = Array.isArray(text) ? res.body : [res.body];
      assert.equal(lists.length, Array.isArray(text) ? 2 : 1);
      for (const [i, chunks] of lists.entries()) {
        const source = Array.isArray(text) ? text[i]! : text;
        assert.ok(chunks.length > 0);
        assertTiles(source, chunks);
        for (const c of chunks) {
          assert.equal(typeof c.text, 'string');
          for (const k of ['start_index', 'end_index', 'token_count'] as const) assert.ok(Number.isInteger(c[k]), k);
          assert.ok(c.token_count <= 1024);
        }
      }
    }
    assert.equal((await app.request('GET', '/')).status, 200, 'the Python client probes GET / first');
    const errors = await slumber({ text: TEXT, ...body, chunk_size: 0 });
    assert.equal(errors.status, 422);
  });

  test('costly parameters have maximums (422 naming the field)', async () => {
    for (const [field, value] of [
      ['chunk_size', 32_769],
      ['candidate_size', 8193],
    ] as const) {
      const res = await slumber({ text: TEXT, [field]: value });
      assert.equal(res.status, 422, field);
      assert.deepEqual(res.body.detail[0].loc, ['body', field]);
    }
  });

  test('a pipeline runs slumber as its chunk step', async () => {
    const created = await app.post('/v1/pipelines', { name: 'topics', steps: [{ type: 'chunk', chunker: 'slumber', config: { ...WORDS, chunk_size: 200 } }] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const res = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: TEXT });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.map((c: Chunk) => c.text),
      SECTIONS,
    );
  });

  test('a large input runs in a worker thread, which reads the LLM settings boot put in its environment', async () => {
    const pooled = await startApp({ 'llm-base-url': llm.url, 'llm-model': 'worker-model', 'llm-api-key-file': keyFile, 'llm-max-calls': '1000', workers: '1' });
    // The worker copied the environment when it started; a model named only on this thread from
    // now on shows whether the questions come from the worker.
    const restore = process.env.CHUNKD_LLM_MODEL;
    process.env.CHUNKD_LLM_MODEL = 'main-thread-model';
    try {
      const big = Array.from({ length: 260 }, () => TEXT).join('\n\n'); // over 64 Ki characters: the pool takes it
      assert.ok(big.length >= 64 * 1024);
      const [res, sent] = await recording(() => pooled.post('/v1/chunk/slumber', { text: big, chunk_size: 512 }));
      assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
      assertTiles(big, res.body);
      assert.ok(sent.length > 0 && sent.every((r) => r.body.model === 'worker-model' && r.headers.authorization === `Bearer ${KEY}`));
    } finally {
      process.env.CHUNKD_LLM_MODEL = restore;
      await pooled.close();
    }
  });

  test('a bad --llm-base-url or an unreadable key file stops start-up with a message', async () => {
    await assert.rejects(startApp({ 'llm-base-url': 'localhost:8080' }), (e) => isChunkdError(e) && /must be an http:\/\/ or https:\/\/ URL/.test(e.message));
    await assert.rejects(
      startApp({ 'llm-base-url': llm.url, 'llm-api-key-file': join(dir, 'missing.key') }),
      (e) => isChunkdError(e) && /cannot read/.test(e.message),
    );
  });
});

const defaults = (config: Record<string, unknown>) => {
  const props = SlumberConfig.properties as unknown as Record<string, { default: unknown }>;
  return { ...Object.fromEntries(Object.entries(props).map(([k, f]) => [k, f.default])), ...config } as Parameters<typeof create>[0];
};

/** A port nothing listens on: opened, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
