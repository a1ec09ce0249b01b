/**
 * A chef on every surface runs as the runner's first step (kernel/engine/runner.ts): the process route,
 * jobs and NDJSON pipeline runs. Judged by counts: the pool's tasks by kind, the extraction pool's
 * starts, the spans kept and dropped, and the bytes answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DEFAULT_POOL } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import type { WorkerPool } from '../kernel/engine/index.js';
import { extractPoolSettings } from '../service/files/extract-settings.js';
import { startApp, type TestApp } from './helpers/app.js';
import { jobResults, submitJob, waitForJob } from './helpers/jobs.js';

const headings = (n: number) => '#\n'.repeat(n);

describe("a chef as the runner's first step, over HTTP", () => {
  let app: TestApp;
  let pool: WorkerPool;
  before(async () => {
    app = await startApp({ workers: '2', 'max-structure-spans': '10', 'max-output-bytes': '100000', 'max-document-output-bytes': '100000' });
    pool = app.booted.deps.executor as WorkerPool;
  });
  after(() => app.close());
  const extractions = () => {
    const started = extractPool({ ...DEFAULT_POOL, ...extractPoolSettings(app.settings) }).started;
    return started.any + started.small;
  };

  test('POST /v1/process/markdown: spans past --max-structure-spans dropped and counted, run in the extraction pool, serialised there', async () => {
    const before = extractions();
    const res = await app.post('/v1/process/markdown', { text: headings(20_000) }); // 40 KB × cost 4: off the event loop
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.structure.headings.length, 10);
    assert.deepEqual(res.body.metadata.dropped_spans, { headings: 19_990 });
    assert.equal(extractions(), before + 1, 'one extraction task ran the chef');
    const small = await app.post('/v1/process/markdown', { text: '# a\n\n## b\n' });
    assert.equal(small.status, 200);
    assert.equal(small.body.metadata.dropped_spans, undefined, 'nothing dropped, nothing said');
  });

  test('a large process body is parsed in a worker: the main thread JSON.parses none of it, the chef runs in the extraction pool', async () => {
    const raw = JSON.stringify({ text: headings(30_000), note: 'an unknown key' }); // 90 KB of JSON: over INLINE_BODY_MAX_BYTES, under --max-output-bytes
    const [jobs, before] = [pool.tasksByKind.job, extractions()];
    const parse = JSON.parse;
    let largest = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      largest = Math.max(largest, String(text).length);
      return parse.call(JSON, text, reviver);
    }) as typeof JSON.parse;
    let res: Response;
    let answer: string;
    try {
      res = await fetch(`${app.url}/v1/process/markdown`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } });
      answer = await res.text();
    } finally {
      JSON.parse = parse;
    }
    assert.equal(res.status, 200, answer.slice(0, 300));
    assert.ok(largest <= 4096, `a string of ${largest} characters was JSON.parse'd on the main thread`);
    assert.equal(pool.tasksByKind.job, jobs + 1, 'one pool task parsed the body');
    assert.equal(extractions(), before + 1, 'one extraction task ran the chef');
    assert.equal(res.headers.get('x-chunkd-ignored-keys'), 'note');
    const doc = JSON.parse(answer);
    assert.equal(doc.text, headings(30_000));
    assert.deepEqual(doc.metadata.dropped_spans, { headings: 29_990 });
    // A large body naming an uploaded file comes back parsed, for the file to be resolved here.
    const form = new FormData();
    form.append('file', new Blob(['# One\n\ntext\n\n## Two\n']), 'doc.md');
    const file = (await (await fetch(`${app.url}/v1/files`, { method: 'POST', body: form })).json()) as { name: string };
    const byFile = await app.post('/v1/process/markdown', { file: { type: 'document', content: file.name }, pad: 'x'.repeat(100_000) });
    assert.equal(byFile.status, 200, JSON.stringify(byFile.body).slice(0, 300));
    assert.deepEqual(
      byFile.body.structure.headings.map((h: { text: string }) => h.text),
      ['One', 'Two'],
    );
    assert.equal(byFile.headers.get('x-chunkd-ignored-keys'), 'pad');
  });

  test('a large pipeline body whose first step is markdown: parsed in a worker, the chef run in the extraction pool (under --max-extract-ms), not in that worker', async () => {
    const created = await app.post('/v1/pipelines', {
      name: 'md-large-body',
      steps: [
        { type: 'process', chef: 'markdown', config: {} },
        { type: 'chunk', chunker: 'recursive', config: { chunk_size: 512 } },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const [jobs, before] = [pool.tasksByKind.job, extractions()];
    const text = `# Big\n\n${'word '.repeat(13_500)}`; // 67.5 KB: over the inline body size, so parsed in a worker
    const res = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text, return_type: 'texts' });
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
    assert.equal(res.body.join(''), text);
    assert.equal(pool.tasksByKind.job, jobs + 1, 'one pool task parsed the body');
    assert.equal(extractions(), before + 1, 'the chef ran in the extraction pool');
  });

  test('a processed document over --max-output-bytes is a 413 naming it', async () => {
    const res = await app.post('/v1/process/markdown', { text: 'x\n'.repeat(60_000) }); // 120 KB of JSON text alone
    assert.equal(res.status, 413);
    assert.match(res.body.detail, /--max-output-bytes \(CHUNKD_MAX_OUTPUT_BYTES\)/);
  });

  test('a job whose first step is process runs it in the pool, per document; its chunks carry the headings', async () => {
    const runs = pool.tasksByKind.run;
    const text = `# Title\n\n${'word '.repeat(15_000)}`; // 75 KB: the text chef and the chunker in one pool task
    const steps = [
      { type: 'process', chef: 'text', config: {} },
      { type: 'chunk', chunker: 'recursive', config: {} },
    ];
    const submitted = await submitJob(app.url, { steps, documents: [{ text }, { text: '# Small\n\nshort text' }] });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const job = await waitForJob(app.url, submitted.body.id);
    assert.equal(job.status, 'done', JSON.stringify(job));
    const { lines } = await jobResults(app.url, submitted.body.id);
    assert.equal(lines.length, 2);
    for (const line of lines) assert.ok(Array.isArray(line.chunks) && line.chunks.length > 0, JSON.stringify(line).slice(0, 200));
    assert.ok(pool.tasksByKind.run >= runs + 1, 'the large document ran in a pool task');
  });

  test('an NDJSON pipeline run whose first step is markdown: each line made where its document ran, a line over the cap a 413 of its own', async () => {
    const created = await app.post('/v1/pipelines', {
      name: 'md-then-chunk',
      steps: [
        { type: 'process', chef: 'markdown', config: {} },
        { type: 'chunk', chunker: 'recursive', config: { chunk_size: 64 } },
      ],
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const before = extractions();
    const res = await fetch(`${app.url}/v1/pipelines/${created.body.id}/execute`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
      body: JSON.stringify({ text: [`# A\n\n${'word '.repeat(2_000)}`, '# B\n\nsmall', `# C\n\n${'word '.repeat(40_000)}`] }),
    });
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => 'index' in l);
    assert.equal(lines.length, 3);
    const byIndex = new Map(lines.map((l) => [l.index, l]));
    assert.deepEqual(byIndex.get(0).chunks[0].metadata.headings, ['A']);
    assert.deepEqual(byIndex.get(1).chunks[0].metadata.headings, ['B']);
    assert.equal(byIndex.get(2).error.code, 'TOO_LARGE');
    assert.match(byIndex.get(2).error.detail, /--max-document-output-bytes/);
    assert.ok(extractions() >= before + 1, 'the large document ran in the extraction pool');
  });
});
