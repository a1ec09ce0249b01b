/** POST /v1/evaluate and chunkd eval on small documents whose scores are worked out by hand. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { WorkerPool } from '../kernel/engine/index.js';
import { SqliteStore } from '../service/storage/sqlite.js';
import { startApp, type TestApp } from './helpers/app.js';
import { CLI } from './helpers/cli.js';

const run = promisify(execFile);

// Character tokens: chunk_size 10 cuts [0,10) "cats sleep", [10,20) " dogs walk", [20,30) " birds sin", [30,31) "g".
const DOC = 'cats sleep dogs walk birds sing';
const token = (size: number) => [{ type: 'chunk' as const, chunker: 'token', config: { chunk_size: size } }];
const question = { question: 'sleep dogs', references: [{ document: 'pets', start_index: 5, end_index: 15 }] }; // spans the first two chunks
const body = (extra: Record<string, unknown> = {}) => ({
  documents: [{ id: 'pets', text: DOC }],
  questions: [question],
  candidates: [token(10), token(20)],
  k: [1, 2],
  ...extra,
});
const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 1e-9, `${actual} ≠ ${expected}`);

/**
 * BM25 ties "cats sleep" and " dogs walk" (one query word each, same length): chunk order keeps
 * "cats sleep" first. size 10, k 1: covers [5,10) of the 10 reference characters → recall 50,
 * precision 5/10, IoU 5/(10 + 5 unreached). k 2: both → recall 100, precision 10/20, IoU 10/20.
 * size 20, k 1: [0,20) covers it all → recall 100, precision 50, IoU 50. Precision Ω is 50 for both.
 */
const EXPECTED = [
  { chunks: 4, k: 1, recall: 50, precision: 50, iou: 100 / 3 },
  { chunks: 4, k: 2, recall: 100, precision: 50, iou: 50 },
  { chunks: 2, k: 1, recall: 100, precision: 50, iou: 50 },
  { chunks: 2, k: 2, recall: 100, precision: 1000 / 31, iou: 1000 / 31 }, // [0,20) and [20,31): 10 of 31 characters
];

function checkResults(results: any[]) {
  assert.equal(results.length, 4);
  results.forEach((r, i) => {
    const e = EXPECTED[i]!;
    assert.deepEqual(r.candidate, i < 2 ? token(10) : token(20));
    assert.equal(r.retriever, 'bm25');
    assert.equal(r.k, e.k);
    assert.equal(r.chunks, e.chunks);
    near(r.recall.mean, e.recall);
    near(r.precision.mean, e.precision);
    near(r.iou.mean, e.iou);
    near(r.precision_omega.mean, 50);
    assert.equal(r.recall.std, 0); // one question
    assert.ok(Number.isInteger(r.time_ms) && r.time_ms >= 0);
  });
  near(results[0].mean_tokens, 31 / 4);
}

describe('POST /v1/evaluate', () => {
  let app: TestApp;
  before(async () => (app = await startApp()));
  after(() => app.close());

  test('scores every candidate at every k, as worked out by hand', async () => {
    const res = await app.post('/v1/evaluate', body());
    assert.equal(res.status, 200, JSON.stringify(res.body));
    checkResults(res.body.results);
    assert.deepEqual(Object.keys(res.body.results[0]), [
      'candidate',
      'retriever',
      'k',
      'recall',
      'precision',
      'iou',
      'precision_omega',
      'chunks',
      'mean_tokens',
      'time_ms',
    ]);
  });

  test('detail: per-question scores and the retrieved spans, best first', async () => {
    const res = await app.post('/v1/evaluate', body({ detail: true, candidates: [token(10)], k: 2 }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const [q] = res.body.results[0].questions;
    assert.deepEqual(q.retrieved, [
      { document: 'pets', start_index: 0, end_index: 10 },
      { document: 'pets', start_index: 10, end_index: 20 },
    ]);
    assert.equal(q.recall, 100);
  });

  test('a stored pipeline id is a candidate like its steps', async () => {
    const created = await app.post('/v1/pipelines', { name: 'ten', steps: token(10) });
    const res = await app.post('/v1/evaluate', body({ candidates: [created.body.id, token(20)] }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.results[0].candidate, created.body.id);
    checkResults(res.body.results.map((r: any, i: number) => (i < 2 ? { ...r, candidate: token(10) } : r)));
  });

  test('an uploaded file is a document', async () => {
    const form = new FormData();
    form.append('file', new Blob([DOC], { type: 'text/plain' }), 'pets.txt');
    const up = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form });
    const { name } = (await up.json()) as { name: string };
    const res = await app.post('/v1/evaluate', body({ documents: [{ id: 'pets', file: name }] }));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    checkResults(res.body.results);
  });

  test('offsets in UTF-8 bytes; locate by text moves repeated chunks to the first copy', async () => {
    // 'né ' is 4 bytes; chunk_size 3 characters cuts four equal chunks at bytes [0,4) [4,8) [8,12) [12,16).
    const text = 'né né né né ';
    const q = { question: 'né', references: [{ document: 'd', start_index: 4, end_index: 7 }] }; // the second "né"
    const req = (locate: string) => ({
      documents: [{ id: 'd', text }],
      questions: [q],
      candidates: [token(3)],
      k: 1,
      offset_unit: 'utf8',
      locate,
      detail: true,
    });
    const byOffsets = await app.post('/v1/evaluate', req('offsets'));
    assert.equal(byOffsets.status, 200, JSON.stringify(byOffsets.body));
    // [4,8) covers it; [0,4) touches it at 4 (an empty intersection): precision Ω = 3 / |[0,8)|
    near(byOffsets.body.results[0].precision_omega.mean, (100 * 3) / 8);
    const byText = await app.post('/v1/evaluate', req('text'));
    // every chunk is placed at the first copy [0,4), which only touches the reference: nothing covered
    assert.deepEqual(byText.body.results[0].questions[0].retrieved, [{ document: 'd', start_index: 0, end_index: 4 }]);
    assert.equal(byText.body.results[0].precision_omega.mean, 0);
    assert.equal(byText.body.results[0].recall.mean, 0);
  });

  test('NDJSON: progress lines, then the same result', async () => {
    const res = await fetch(`${app.url}/v1/evaluate`, {
      method: 'POST',
      headers: { accept: 'application/x-ndjson', 'content-type': 'application/json' },
      body: JSON.stringify(body()),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    const progress = lines.slice(0, -1);
    assert.deepEqual(
      progress.map((l) => `${l.progress.stage} ${l.progress.done}/${l.progress.total}`),
      ['started 0/2', 'scored 1/2', 'started 1/2', 'scored 2/2'],
    );
    checkResults(lines.at(-1).results);
  });

  test('embeddings and hybrid retrieval with the built-in model', async () => {
    for (const retriever of ['embeddings', 'hybrid']) {
      const res = await app.post('/v1/evaluate', body({ retriever, detail: true }));
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const [first] = res.body.results;
      assert.equal(first.retriever, retriever);
      assert.equal(first.chunks, 4);
      // k 1 retrieves one of the four chunks; its span is one of the chunker's
      const [span] = first.questions[0].retrieved;
      assert.ok([0, 10, 20, 30].includes(span.start_index), JSON.stringify(span));
    }
  });

  test('422 naming the question: a reference outside its document, an unknown document', async () => {
    const outside = await app.post(
      '/v1/evaluate',
      body({ questions: [question, { question: 'birds', references: [{ document: 'pets', start_index: 20, end_index: 99 }] }] }),
    );
    assert.equal(outside.status, 422);
    assert.deepEqual(outside.body.detail[0].loc, ['body', 'questions', 1, 'references', 0]);
    assert.match(outside.body.detail[0].msg, /^Question 1 \("birds"\).*\[20, 99\).*31 characters/);
    const unknown = await app.post('/v1/evaluate', body({ questions: [{ question: 'x', references: [{ document: 'cats', start_index: 0, end_index: 1 }] }] }));
    assert.equal(unknown.status, 422);
    assert.match(unknown.body.detail[0].msg, /^Question 0 .*document 'cats'.*'pets'/);
  });

  test('422: k below 1, bad steps, an unknown pipeline id', async () => {
    const k = await app.post('/v1/evaluate', body({ k: [2, 0] }));
    assert.equal(k.status, 422);
    assert.deepEqual(
      k.body.detail.map((i: any) => i.loc),
      [['body', 'k', 1]],
    );
    const steps = await app.post('/v1/evaluate', body({ candidates: [token(10), [{ type: 'chunk', chunker: 'nope' }], 'no-such-id'] }));
    assert.equal(steps.status, 422);
    assert.deepEqual(
      steps.body.detail.map((i: any) => i.loc),
      [
        ['body', 'candidates', 1, 0, 'chunker'],
        ['body', 'candidates', 2],
      ],
    );
  });

  test('400 with the model hint for an embeddings model that is missing', async () => {
    const res = await app.post('/v1/evaluate', body({ retriever: 'embeddings', embedding_model: 'nobody/no-such-model' }));
    assert.equal(res.status, 400);
    assert.match(res.body.detail, /[Ee]mbedding model 'nobody\/no-such-model'.*(model directory|Put its files)/);
  });
});

describe('POST /v1/evaluate limits and the pool', () => {
  test('413 over the budget, naming the limit and its setting', async () => {
    const app = await startApp({ 'max-eval-work': '3' });
    try {
      const res = await app.post('/v1/evaluate', body()); // 1 document × 2 candidates × 1 question = 2: fits
      assert.equal(res.status, 200);
      const over = await app.post('/v1/evaluate', body({ questions: [question, question] })); // 4
      assert.equal(over.status, 413);
      assert.match(over.body.detail, /1 documents × 2 candidates × 2 questions = 4; the limit is 3\..*--max-eval-work \(CHUNKD_MAX_EVAL_WORK\)/);
    } finally {
      await app.close();
    }
  });

  test('with workers, each candidate chunks and is scored in one pool task, and gives the same figures', async () => {
    const app = await startApp({ workers: '1' });
    try {
      const pool = app.booted.deps.executor as WorkerPool;
      const before = { ...pool.tasksByKind };
      const res = await app.post('/v1/evaluate', body());
      assert.equal(res.status, 200, JSON.stringify(res.body));
      checkResults(res.body.results);
      // One job task per candidate; no runner, chunk or refine task hands chunks back to this thread.
      assert.deepEqual(Object.fromEntries(Object.entries(pool.tasksByKind).map(([k, n]) => [k, n - before[k as keyof typeof before]])), { job: 2, run: 0 });
    } finally {
      await app.close();
    }
  });

  test('413 before any chunking for retrieved chunks over --max-eval-retrieved, and detail over --max-output-bytes', async () => {
    const app = await startApp({ workers: '1', 'max-eval-retrieved': '1000', 'max-output-bytes': '200000' });
    try {
      const pool = app.booted.deps.executor as WorkerPool;
      const tasks = pool.tasksRun;
      // 30 KB, 1,000 questions, k 100,000: k is capped by the documents' 30,000 characters, still far over.
      const big = {
        documents: [{ id: 'big', text: 'word '.repeat(6_000) }],
        questions: Array.from({ length: 1_000 }, () => ({ question: 'word', references: [{ document: 'big', start_index: 0, end_index: 4 }] })),
        candidates: [token(30)],
        k: [100_000],
        detail: true,
      };
      const over = await app.post('/v1/evaluate', big);
      assert.equal(over.status, 413);
      assert.match(
        over.body.detail,
        /1,000 questions × 1 candidates × 30,000 chunks .* = 30,000,000 chunks; the limit is 1,000\..*--max-eval-retrieved \(CHUNKD_MAX_EVAL_RETRIEVED\)/,
      );
      // Under the retrieval cap, detail that could not fit the answer cap is refused as well.
      const detail = await startApp({ workers: '1', 'max-output-bytes': '200000' });
      try {
        const res = await detail.post('/v1/evaluate', { ...big, k: [10] }); // 10,000 retrieved chunks listed: ≥ 490,000 bytes
        assert.equal(res.status, 413);
        assert.match(res.body.detail, /With detail, the answer would take at least [\d,]+ bytes.*--max-output-bytes \(CHUNKD_MAX_OUTPUT_BYTES\)/);
        assert.equal((await detail.post('/v1/evaluate', { ...big, k: [10], detail: false })).status, 200, 'the same without detail runs');
      } finally {
        await detail.close();
      }
      // The 413 body (1,000 questions: over INLINE_BODY_MAX_BYTES) was parsed in a worker: that one task, and no candidate's.
      assert.equal(pool.tasksRun, tasks + 1, 'refused before any chunking: only the body was parsed in the pool');
      const fits = await app.post('/v1/evaluate', body()); // 1 question × 2 candidates × (1 + 2)
      assert.equal(fits.status, 200);
    } finally {
      await app.close();
    }
  });
});

describe('chunkd eval', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-eval-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'corpora'));
  writeFileSync(join(dir, 'corpora', 'pets.md'), DOC);
  const refs = JSON.stringify([{ content: 'sleep dogs', start_index: 5, end_index: 15 }]).replaceAll('"', '""');
  writeFileSync(join(dir, 'questions.csv'), `question,references,corpus_id\n"sleep dogs","${refs}",pets\n`);
  const cli = (...args: string[]) =>
    run(process.execPath, [...CLI, 'eval', '--corpora', join(dir, 'corpora'), '--questions', join(dir, 'questions.csv'), ...args], {
      env: { ...process.env, CHUNKD_DATA_DIR: join(dir, 'data') },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );

  test('--format json: the benchmark format, hand-computed figures', async () => {
    const out = await cli('--candidate', JSON.stringify(token(10)), '--candidate', JSON.stringify(token(20)), '--k', '1,2', '--format', 'json');
    assert.equal(out.code, 0, out.stderr);
    const { results } = JSON.parse(out.stdout);
    checkResults(results.map((r: any) => ({ ...r, time_ms: 0 })));
    assert.deepEqual(Object.keys(results[0]), ['candidate', 'retriever', 'k', 'recall', 'precision', 'iou', 'precision_omega', 'chunks', 'mean_tokens']);
  });

  test('--format table (the default)', async () => {
    const out = await cli('--candidate', JSON.stringify(token(10)), '--k', '2');
    assert.equal(out.code, 0, out.stderr);
    const row = out.stdout.split('\n')[2]!;
    assert.match(row, /^\| token chunk_size=10 \| bm25 \| 2 \| 4 \| 8 \| 100\.0 ± 0\.0 \| 50\.00 ± 0\.00 \| 50\.00 ± 0\.00 \| 50\.0 ± 0\.0 \| \d+ \|$/);
  });

  test('a candidate by pipeline file, and by the name of a pipeline stored in --data-dir', async () => {
    mkdirSync(join(dir, 'data'), { recursive: true });
    const store = await SqliteStore.open(join(dir, 'data', 'chunkd.db'));
    await store.create({ id: '5b0e6a4e-0000-4000-8000-000000000001', name: 'twenty', description: null, steps: token(20), created_at: '', updated_at: '' });
    await store.close();
    writeFileSync(join(dir, 'ten.json'), JSON.stringify({ name: 'ten', steps: token(10) }));
    const out = await cli('--candidate', join(dir, 'ten.json'), '--candidate', 'twenty', '--k', '1,2', '--format', 'json');
    assert.equal(out.code, 0, out.stderr);
    const { results } = JSON.parse(out.stdout);
    assert.deepEqual(
      results.map((r: any) => r.candidate),
      [join(dir, 'ten.json'), join(dir, 'ten.json'), 'twenty', 'twenty'],
    );
    checkResults(results.map((r: any, i: number) => ({ ...r, candidate: i < 2 ? token(10) : token(20), time_ms: 0 })));
    const unknown = await cli('--candidate', 'nope');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /no pipeline with id or name 'nope'/);
  });

  test('bad input: exit 2 with the reason', async () => {
    const k = await cli('--k', '0');
    assert.equal(k.code, 2);
    assert.match(k.stderr, /--k takes whole numbers of at least 1/);
    const retriever = await cli('--retriever', 'tfidf');
    assert.equal(retriever.code, 2);
    assert.match(retriever.stderr, /--retriever must be one of bm25, embeddings, hybrid/);
    const missing = await run(process.execPath, [...CLI, 'eval', '--corpora', join(dir, 'nowhere'), '--questions', join(dir, 'questions.csv')]).catch((e) => e);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /corpus 'pets'.*nowhere.*file name without \.md/);
  });
});
