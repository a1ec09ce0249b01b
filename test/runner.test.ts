/**
 * The document runner (kernel/engine/runner.ts) on every path: output caps (JSON answers, NDJSON lines,
 * job results), serialization in the worker, yields between documents, and large bodies parsed in
 * a worker whatever they hold or the client accepts. Judged by counts (the pool's task counter,
 * bytes, lines), never by timing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/engine/index.js';
import { inline, Runner } from '../kernel/engine/index.js';
import { parseConfig } from '../kernel/request.js';
import { tokenWindows } from '../kernel/tokenizers/windows.js';
import { startApp, type TestApp } from './helpers/app.js';
import { jobResults, submitJob, waitForJob } from './helpers/jobs.js';

const NDJSON = { accept: 'application/x-ndjson', 'content-type': 'application/json' };

async function stream(app: TestApp, path: string, body: string) {
  const res = await fetch(app.url + path, { method: 'POST', headers: NDJSON, body });
  const text = await res.text();
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    lines: text
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l)),
  };
}

async function post(app: TestApp, path: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, bytes, length: res.headers.get('content-length') };
}

/** A text whose chunks at chunk_size 1 take ~100 bytes of JSON per character. */
const text = (chars: number) => 'ab '.repeat(Math.ceil(chars / 3)).slice(0, chars);

describe('output caps', () => {
  let app: TestApp;
  let pool: WorkerPool;
  before(async () => {
    app = await startApp({ workers: '2', 'max-output-bytes': String(1_000_000), 'max-document-output-bytes': String(200_000) });
    pool = app.booted.deps.executor as WorkerPool;
  });
  after(() => app.close());

  test('a JSON answer over --max-output-bytes is a 413 naming the limit, never a 200 with a cut body', async () => {
    for (const chars of [20_000, 200_000]) {
      // 20,000 characters run inline, 200,000 in the pool: both capped.
      const res = await post(app, '/v1/chunk/token', JSON.stringify({ text: text(chars), chunk_size: 1 }));
      assert.equal(res.status, 413, `${chars}`);
      const body = JSON.parse(res.bytes.toString());
      assert.equal(body.code, 'TOO_LARGE');
      assert.match(body.detail, /the limit is 1,000,000\. .*--max-output-bytes \(CHUNKD_MAX_OUTPUT_BYTES\)/);
    }
    const fits = await post(app, '/v1/chunk/token', JSON.stringify({ text: text(5_000), chunk_size: 1 }));
    assert.equal(fits.status, 200);
    assert.equal(JSON.parse(fits.bytes.toString()).length, 5_000);
    assert.equal(fits.bytes.length, Number(fits.length), 'the whole body, as announced');
  });

  test('a batch over --max-output-bytes in total is a 413, though each document fits', async () => {
    const res = await post(app, '/v1/chunk/token', JSON.stringify({ text: Array.from({ length: 4 }, () => text(4_000)), chunk_size: 1 }));
    assert.equal(res.status, 413);
    assert.match(JSON.parse(res.bytes.toString()).detail, /--max-output-bytes/);
  });

  test('an NDJSON document over --max-document-output-bytes is its own 413 line, the others are answered', async () => {
    const before = pool.tasksByKind.run;
    const res = await stream(app, '/v1/chunk/token', JSON.stringify({ text: [text(100_000), 'small text', text(1_000)], chunk_size: 1 }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.lines[0], { total: 3 });
    const byIndex = new Map(res.lines.slice(1).map((l) => [l.index, l]));
    assert.equal(byIndex.size, 3);
    assert.equal(byIndex.get(0).error.code, 'TOO_LARGE');
    assert.match(byIndex.get(0).error.detail, /the limit is 200,000\. .*--max-document-output-bytes \(CHUNKD_MAX_DOCUMENT_OUTPUT_BYTES\)/);
    assert.equal(byIndex.get(1).chunks.length, 'small text'.length);
    assert.equal(byIndex.get(2).chunks.length, 1_000);
    assert.ok(pool.tasksByKind.run > before, 'the large document ran (and was serialized) in a worker');
  });

  test('pipeline execute and the slug run answer 413 over --max-output-bytes', async () => {
    const steps = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1 } }];
    const created = await app.post('/v1/pipelines', { name: 'runner-cap', steps });
    assert.equal(created.status, 201);
    const slug = await app.post('/v1/pipeline', { slug: 'runner-cap-slug', steps: [{ type: 'chunk', component: 'token', chunk_size: 1 }] });
    assert.equal(slug.status, 200);
    for (const path of [`/v1/pipelines/${created.body.id}/execute`, '/v1/pipeline/runner-cap-slug']) {
      for (const chars of [20_000, 200_000]) {
        const res = await post(app, path, JSON.stringify({ text: text(chars) }));
        assert.equal(res.status, 413, `${path} ${chars}`);
        assert.match(JSON.parse(res.bytes.toString()).detail, /--max-output-bytes/);
      }
    }
  });

  test('a job document over --max-document-output-bytes fails alone with a 413 naming the limit; nothing of it is stored', async () => {
    const docs = [
      { id: 'huge', text: text(100_000) },
      { id: 'fine', text: 'a short one.' },
    ];
    const sub = await submitJob(app.url, { steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 1 } }], documents: docs });
    assert.equal(sub.status, 202, JSON.stringify(sub.body));
    const job = await waitForJob(app.url, sub.body.id);
    assert.deepEqual(job.documents, { total: 2, done: 1, failed: 1 });
    assert.equal(job.failures[0].document_id, 'huge');
    assert.equal(job.failures[0].error.code, 'TOO_LARGE');
    assert.match(job.failures[0].error.detail, /--max-document-output-bytes/);
    const { lines } = await jobResults(app.url, sub.body.id);
    assert.ok(JSON.stringify(lines).length < 10_000, 'the failed document stored only its error');
    assert.equal(lines[1]!.chunks!.length, 12);
  });
});

describe('large bodies are parsed in a worker', () => {
  let app: TestApp;
  let pool: WorkerPool;
  before(async () => {
    app = await startApp({ workers: '2' });
    pool = app.booted.deps.executor as WorkerPool;
  });
  after(() => app.close());

  test('a large body holding the bytes "file" (not as its key) goes to a worker unparsed', async () => {
    const body = JSON.stringify({ text: `${text(100_000)} "file"`, x: 'file', chunk_size: 512 });
    const before = pool.tasksByKind.job;
    const res = await post(app, '/v1/chunk/token', body);
    assert.equal(res.status, 200);
    assert.equal(pool.tasksByKind.job - before, 1, 'one worker job parsed the body');
    assert.ok(JSON.parse(res.bytes.toString()).length > 100);
  });

  test('a large body that does name an uploaded file is parsed in a worker, then its file resolved here', async () => {
    const form = new FormData();
    form.append('file', new Blob(['Alpha beta gamma. Delta epsilon.'], { type: 'text/markdown' }), 'doc.md');
    const uploaded = (await (await fetch(`${app.url}/v1/files`, { method: 'POST', body: form })).json()) as { name: string };
    const body = JSON.stringify({ file: { type: 'document', content: uploaded.name }, chunk_size: 8, padding: 'x'.repeat(100_000) });
    const before = pool.tasksByKind.job;
    const res = await post(app, '/v1/chunk/token', body);
    assert.equal(res.status, 200, res.bytes.toString().slice(0, 200));
    assert.equal(pool.tasksByKind.job - before, 1, 'one worker job parsed the body');
    assert.equal((JSON.parse(res.bytes.toString()) as { text: string }[]).map((c) => c.text).join(''), 'Alpha beta gamma. Delta epsilon.');
  });

  test('Accept: application/x-ndjson does not make a large body parse on the main thread', async () => {
    const before = { job: pool.tasksByKind.job, run: pool.tasksByKind.run };
    const res = await stream(app, '/v1/chunk/token', JSON.stringify({ text: [text(100_000), text(90_000)], chunk_size: 512 }));
    assert.equal(res.status, 200);
    assert.deepEqual(res.lines[0], { total: 2 });
    assert.equal(pool.tasksByKind.job - before.job, 1, 'one worker job parsed the body');
    assert.equal(pool.tasksByKind.run - before.run, 2, 'each document ran in a worker');
    assert.deepEqual(
      res.lines
        .slice(1)
        .map((l) => l.index)
        .sort(),
      [0, 1],
    );
  });

  test('a large pipeline execute with Accept: application/x-ndjson is parsed in a worker too', async () => {
    const created = await app.post('/v1/pipelines', { name: 'runner-ndjson', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 512 } }] });
    const before = pool.tasksByKind.job;
    const res = await stream(app, `/v1/pipelines/${created.body.id}/execute`, JSON.stringify({ text: [text(100_000)], x: 'file' }));
    assert.equal(res.status, 200);
    assert.equal(pool.tasksByKind.job - before, 1);
    assert.equal(res.lines[1].chunks.length, Math.ceil(100_000 / 512));
  });
});

describe('the 10 MB NDJSON case, default settings', () => {
  test('chunk_size 1 on 10 MB streams {"total":1} then a 413 line naming --max-document-output-bytes, never a RangeError', async () => {
    const app = await startApp({ workers: '2' });
    try {
      const res = await stream(app, '/v1/chunk/token', JSON.stringify({ text: [text(10_000_000)], chunk_size: 1 }));
      assert.equal(res.status, 200);
      assert.deepEqual(res.lines[0], { total: 1 });
      assert.equal(res.lines.length, 2);
      assert.equal(res.lines[1].index, 0);
      assert.equal(res.lines[1].error.code, 'TOO_LARGE');
      assert.match(res.lines[1].error.detail, /the limit is 16,777,216\. .*--max-document-output-bytes/);
    } finally {
      await app.close();
    }
  });
});

describe('the runner itself', () => {
  test('a processed document ({text, structure}) reaches the chunker with its structure, on this thread and in a worker', async () => {
    const app = await startApp({ workers: '1' });
    try {
      const pool = app.booted.deps.executor as WorkerPool;
      const plugin = app.booted.deps.registry.find('chunker', 'token')!;
      const recipe = { steps: [{ plugin, config: parseConfig(plugin, { chunk_size: 64 }, []) }], unit: 'codepoint' as const, returnType: 'chunks' as const };
      const big = 'x'.repeat(100_000);
      const body = `Title\n\n${big}`;
      const structure = { headings: [{ level: 1, text: 'Title', start: 0, end: 5 }], tables: [], code: [], images: [], pages: [] };
      const limits = { maxOutputBytes: 1e9, maxDocumentOutputBytes: 1e9, maxChunks: 1e6 };
      const answers: { text: string; metadata?: { headings: string[] } }[][] = [];
      for (const runner of [new Runner(inline, limits), new Runner(pool, limits)]) {
        const before = pool.tasksByKind.run;
        const parts = await runner.answer(recipe, [{ text: body, structure }, body], { list: true });
        if (runner.executor === pool) assert.ok(pool.tasksByKind.run > before, 'the documents ran in a worker');
        const [withStructure, plain] = JSON.parse(Buffer.concat(parts).toString()) as (typeof answers)[number][];
        assert.deepEqual(withStructure!.at(-1)!.metadata?.headings, ['Title']);
        assert.ok(
          plain!.every((c) => c.metadata === undefined),
          'a plain text gets no structure metadata',
        );
        answers.push(withStructure!);
      }
      assert.deepEqual(answers[1], answers[0], 'the same chunks here and in a worker');
    } finally {
      await app.close();
    }
  });

  test('the token chunker stops past ChunkContext.maxSpans: a capped text never builds all its spans', () => {
    const ends = Uint32Array.from({ length: 1000 }, (_, i) => i + 1);
    assert.equal(tokenWindows(ends, 1, 0).length, 1000);
    assert.equal(tokenWindows(ends, 1, 0, 0, undefined, 10).length, 11);
  });

  test('each() yields to the event loop between documents', async () => {
    const app = await startApp({ workers: '0' });
    try {
      const plugin = app.booted.deps.registry.find('chunker', 'token')!;
      const runner = new Runner(inline, { maxOutputBytes: 1e9, maxDocumentOutputBytes: 1e9, maxChunks: 1e6 });
      let turns = 0;
      let running = true;
      const spin = () => {
        turns++;
        if (running) setImmediate(spin);
      };
      setImmediate(spin);
      const seen: number[] = [];
      await runner.each(
        { steps: [{ plugin, config: parseConfig(plugin, { chunk_size: 4 }, []) }], unit: 'codepoint', returnType: 'texts' },
        Array.from({ length: 50 }, () => 'some words here'),
        (i, r) => {
          assert.ok('bytes' in r, JSON.stringify(r));
          assert.deepEqual(JSON.parse(Buffer.from(r.bytes).toString()), ['some', ' wor', 'ds h', 'ere']);
          seen.push(turns);
        },
      );
      running = false;
      assert.equal(seen.length, 50);
      // Without a yield the 50 documents run in one turn of the event loop (promises only).
      assert.ok(seen[49]! - seen[0]! >= 49, `the event loop turned between documents (${seen[49]! - seen[0]!} turns)`);
    } finally {
      await app.close();
    }
  });
});
