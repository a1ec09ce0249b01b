/**
 * Evaluation through a store (`"retriever": "store:NAME"`, `chunkd eval --retriever store:NAME`):
 * each candidate's rows go to a scratch collection of the store (the embedded LanceDB default
 * here), every question searches that store's own index, and the exact-cosine rows of the same
 * candidate come beside them. LanceDB searches a table without a vector index by a flat scan, so
 * here the store's ranking must be exactly the exact-cosine one; nothing is left in the store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { discover } from '../kernel/discovery.js';
import type { WorkerPool } from '../kernel/engine/index.js';
import { Stores } from '../service/stores/stores.js';
import { startApp, type TestApp } from './helpers/app.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';
import { CLI } from './helpers/cli.js';

const execute = promisify(execFile);

const DOCS = [
  { id: 'rivers', text: 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded.' },
  { id: 'bees', text: 'Bees visit the orchard in April. The honey harvest comes in late summer, after the lavender.' },
];
const questions = [
  { question: 'When is the honey harvest?', references: [{ document: 'bees', start_index: 33, end_index: 91 }] },
  { question: 'Where did the farmers take their herds?', references: [{ document: 'rivers', start_index: 30, end_index: 63 }] },
  { question: 'What happened to the water in spring?', references: [{ document: 'rivers', start_index: 64, end_index: 92 }] },
];
const sentence = [{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 12 } }];
const token = [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16 } }];

type Row = {
  candidate: unknown;
  retriever: string;
  k: number;
  recall: { mean: number; std: number };
  precision: { mean: number };
  iou: { mean: number; std: number };
  precision_omega: { mean: number };
  chunks: number;
  questions?: { retrieved: unknown[] }[];
};

/** Whether a value holds a list of chunk-like objects (what must never come back from a candidate's task). */
function holdsChunkList(value: unknown, depth = 0): boolean {
  if (depth > 6 || !value || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  if (Array.isArray(value)) return value.some((v) => (v && typeof v === 'object' && 'start_index' in v && 'text' in v) || holdsChunkList(v, depth + 1));
  return Object.values(value).some((v) => holdsChunkList(v, depth + 1));
}

describe('POST /v1/evaluate with retriever store:default (LanceDB), candidates in pool tasks', () => {
  let app: TestApp;
  let pool: WorkerPool;
  const outcomes: unknown[] = [];
  before(async () => {
    app = await startApp({ workers: '1' });
    pool = app.booted.deps.executor as WorkerPool;
    // Every answer of a job task, as the calling thread receives it.
    const job = pool.job.bind(pool);
    pool.job = (async (...args: Parameters<WorkerPool['job']>) => {
      const out = await job(...args);
      outcomes.push(out);
      return out;
    }) as WorkerPool['job'];
  });
  after(() => app.close());

  const storeCollections = async () =>
    ((await app.request('GET', '/v1/stores')).body as { name: string; collections: { name: string; count: number }[] }[]).find((s) => s.name === 'default')!
      .collections;

  test('rows for the store and for exact cosine per candidate and k; the flat index ranks as exact cosine does', async () => {
    const before = { ...pool.tasksByKind };
    outcomes.length = 0;
    const res = await app.post('/v1/evaluate', {
      documents: DOCS,
      questions,
      candidates: [sentence, token],
      retriever: 'store:default:vector',
      k: [1, 3],
      detail: true,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.results as Row[];
    assert.deepEqual(
      rows.map((r) => [r.candidate === sentence || JSON.stringify(r.candidate) === JSON.stringify(sentence) ? 'sentence' : 'token', r.retriever, r.k]),
      [
        ['sentence', 'store:default:vector', 1],
        ['sentence', 'store:default:vector', 3],
        ['sentence', 'embeddings', 1],
        ['sentence', 'embeddings', 3],
        ['token', 'store:default:vector', 1],
        ['token', 'store:default:vector', 3],
        ['token', 'embeddings', 1],
        ['token', 'embeddings', 3],
      ],
    );
    for (let c = 0; c < 2; c++) {
      const [store1, store3, exact1, exact3] = rows.slice(c * 4, c * 4 + 4) as [Row, Row, Row, Row];
      assert.ok(store1.chunks > 3, `candidate ${c} made ${store1.chunks} chunks`);
      for (const [s, e] of [
        [store1, exact1],
        [store3, exact3],
      ] as const) {
        assert.equal(s.chunks, e.chunks);
        // The same retrieved spans, question by question, so the same figures.
        assert.deepEqual(s.questions, e.questions);
        assert.deepEqual([s.recall, s.precision, s.iou, s.precision_omega], [e.recall, e.precision, e.iou, e.precision_omega]);
      }
      assert.equal(store3.questions![0]!.retrieved.length, 3);
    }
    assert.ok(
      rows.some((r) => r.recall.mean > 0),
      'some evidence is retrieved',
    );
    // One job task per candidate (chunk, embed, score); no run task (the three questions are
    // embedded on this thread, below the pool's threshold). No chunk list came back.
    const ran = Object.fromEntries(Object.entries(pool.tasksByKind).map(([k, n]) => [k, n - before[k as keyof typeof before]]));
    assert.deepEqual(ran, { job: 2, run: 0 });
    assert.equal(outcomes.length, 2);
    for (const o of outcomes as { rows: { vectors: unknown; spans: unknown; text: unknown; textEnds: unknown } }[]) {
      assert.ok(o.rows.vectors instanceof Float32Array && o.rows.spans instanceof Float64Array);
      assert.ok(typeof o.rows.text === 'string' && o.rows.textEnds instanceof Uint32Array);
      assert.equal(holdsChunkList(o), false);
    }
  });

  test('NDJSON: progress lines, then the store and exact-cosine rows', async () => {
    const res = await fetch(`${app.url}/v1/evaluate`, {
      method: 'POST',
      headers: { accept: 'application/x-ndjson', 'content-type': 'application/json' },
      body: JSON.stringify({ documents: DOCS, questions, candidates: [sentence], retriever: 'store:default', k: 2 }),
    });
    assert.equal(res.status, 200);
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(
      lines.slice(0, -1).map((l) => l.progress.stage),
      ['embedded questions', 'started', 'scored'],
    );
    assert.deepEqual(
      lines.at(-1).results.map((r: Row) => r.retriever),
      // no mode named: the built-in model's default, text, beside BM25
      ['store:default:text', 'bm25'],
    );
  });

  test('nothing is left in the store: no collection, no row', async () => {
    assert.deepEqual(await storeCollections(), []);
  });

  test('422 before any work: an unknown store (naming the connections), a connection field, k over what a search returns', async () => {
    const tasks = pool.tasksRun;
    const body = { documents: DOCS, questions, candidates: [sentence] };
    const unknown = await app.post('/v1/evaluate', { ...body, retriever: 'store:defualt' });
    assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
    assert.deepEqual(unknown.body.detail[0].loc, ['body', 'retriever']);
    assert.match(unknown.body.detail[0].msg, /Did you mean 'default'\?.*store connections: default/);
    const path = await app.post('/v1/evaluate', { ...body, retriever: 'store:default', path: '/tmp/elsewhere' });
    assert.equal(path.status, 422, JSON.stringify(path.body));
    assert.deepEqual(path.body.detail[0].loc, ['body', 'path']);
    const k = await app.post('/v1/evaluate', { ...body, retriever: 'store:default', k: [5, 1001] });
    assert.equal(k.status, 422, JSON.stringify(k.body));
    assert.deepEqual(k.body.detail[0].loc, ['body', 'k', 1]);
    assert.match(k.body.detail[0].msg, /at most 1000/);
    const shape = await app.post('/v1/evaluate', { ...body, retriever: 'store:' });
    assert.equal(shape.status, 422);
    const mode = await app.post('/v1/evaluate', { ...body, retriever: 'store:default:keyword' });
    assert.equal(mode.status, 422, JSON.stringify(mode.body));
    assert.equal(pool.tasksRun, tasks, 'refused before any pool task');
  });

  test('a body large enough to be parsed in a worker is refused by its connection field too, before any candidate runs', async () => {
    const padded = [...DOCS, { id: 'padding', text: 'Filler words for a large body. '.repeat(4_000) }];
    const tasks = pool.tasksRun;
    const res = await app.post('/v1/evaluate', {
      documents: padded,
      questions,
      candidates: [sentence],
      retriever: 'store:default',
      url: 'http://169.254.169.254/',
    });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.deepEqual(res.body.detail[0].loc, ['body', 'url']);
    assert.doesNotMatch(JSON.stringify(res.body), /169\.254/);
    const nested = await app.post('/v1/evaluate', {
      documents: padded,
      questions: [{ ...questions[0], host: '10.0.0.1' }],
      candidates: [sentence],
      retriever: 'store:default',
    });
    assert.equal(nested.status, 422, JSON.stringify(nested.body));
    assert.deepEqual(nested.body.detail[0].loc, ['body', 'questions', 0, 'host']);
    assert.equal(pool.tasksRun, tasks + 2, 'a pool task per body parse, no candidate');
  });
});

describe('POST /v1/evaluate with a store that searches by text only', () => {
  const plugins = memoryHandshakeDir();
  const index = join(plugins, 'memory', 'index.mjs');
  writeFileSync(index, readFileSync(index, 'utf8').replace('vector: true', 'vector: false'));
  let app: TestApp;
  before(async () => (app = await startApp({ 'plugins-dir': plugins, stores: JSON.stringify([{ name: 'words', handshake: 'memory' }]) })));
  after(async () => {
    await app.close();
    rmSync(plugins, { recursive: true, force: true });
  });

  test('store:words:vector and :hybrid: 422 naming the one mode it serves; store:words runs text, beside BM25', async () => {
    for (const mode of ['vector', 'hybrid']) {
      const res = await app.post('/v1/evaluate', { documents: DOCS, questions, candidates: [sentence], retriever: `store:words:${mode}` });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.deepEqual(res.body.detail[0].loc, ['body', 'retriever']);
      assert.match(
        res.body.detail[0].msg,
        new RegExp(`'words' \\(memory\\) cannot search in the ${mode} mode: the store 'words' serves text \\(store:words:text`),
      );
    }
    const res = await app.post('/v1/evaluate', { documents: DOCS, questions, candidates: [sentence], retriever: 'store:words', k: [1, 3] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.results as Row[];
    assert.deepEqual(
      rows.map((r) => [r.retriever, r.k]),
      [
        ['store:words:text', 1],
        ['store:words:text', 3],
        ['bm25', 1],
        ['bm25', 3],
      ],
    );
    // the memory handshake's BM25 over the rows' index text, the evaluation's BM25 over the same text: the same figures
    assert.deepEqual([rows[0]!.recall, rows[1]!.recall], [rows[2]!.recall, rows[3]!.recall]);
  });
});

describe('chunkd eval --retriever store:default', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-eval-store-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  mkdirSync(join(dir, 'corpora'));
  for (const d of DOCS) writeFileSync(join(dir, 'corpora', `${d.id}.md`), d.text);
  const csv = (q: (typeof questions)[number]) =>
    `"${q.question}","${JSON.stringify(q.references.map((r) => ({ content: '', start_index: r.start_index, end_index: r.end_index }))).replaceAll('"', '""')}",${q.references[0]!.document}`;
  writeFileSync(join(dir, 'questions.csv'), `question,references,corpus_id\n${questions.map(csv).join('\n')}\n`);
  const data = join(dir, 'data');
  const cli = (...args: string[]) =>
    execute(process.execPath, [...CLI, 'eval', '--corpora', join(dir, 'corpora'), '--questions', join(dir, 'questions.csv'), ...args], {
      env: { ...process.env, CHUNKD_DATA_DIR: data },
    }).then(
      (r) => ({ code: 0, ...r }),
      (e) => ({ code: e.code as number, stdout: e.stdout as string, stderr: e.stderr as string }),
    );

  test('store rows and exact-cosine rows, equal on the flat index; the data directory store left empty', async () => {
    const out = await cli('--retriever', 'store:default:vector', '--candidate', JSON.stringify(sentence), '--k', '1,3', '--format', 'json');
    assert.equal(out.code, 0, out.stderr);
    const { results } = JSON.parse(out.stdout) as { results: Row[] };
    assert.deepEqual(
      results.map((r) => [r.retriever, r.k]),
      [
        ['store:default:vector', 1],
        ['store:default:vector', 3],
        ['embeddings', 1],
        ['embeddings', 3],
      ],
    );
    for (const [s, e] of [
      [results[0]!, results[2]!],
      [results[1]!, results[3]!],
    ] as const)
      assert.deepEqual([s.recall, s.precision, s.iou], [e.recall, e.precision, e.iou]);
    const stores = Stores.fromSettings(await discover(), { stores: '', dataDir: data, databaseUrl: '' });
    try {
      assert.deepEqual((await stores.list())[0]!.collections, []);
    } finally {
      await stores.close();
    }
  });

  test('store:default:text: the LanceDB full-text index beside BM25 on the same index text', async () => {
    const out = await cli('--retriever', 'store:default:text', '--candidate', JSON.stringify(sentence), '--k', '1,3', '--format', 'json');
    assert.equal(out.code, 0, out.stderr);
    const { results } = JSON.parse(out.stdout) as { results: Row[] };
    assert.deepEqual(
      results.map((r) => [r.retriever, r.k]),
      [
        ['store:default:text', 1],
        ['store:default:text', 3],
        ['bm25', 1],
        ['bm25', 3],
      ],
    );
    assert.ok(results[0]!.recall.mean > 0, 'the full-text index finds evidence');
  });

  test('an unknown store: exit 2 naming the connections', async () => {
    const out = await cli('--retriever', 'store:nope');
    assert.equal(out.code, 2);
    assert.match(out.stderr, /retriever: .*'nope'.*store connections: default/);
  });
});
