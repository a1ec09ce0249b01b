/**
 * Evaluation through a store, at the service (service/evaluation/): on pgvector (a real PostgreSQL
 * engine, PGlite over the wire protocol) as on LanceDB, a store that fails or an evaluation that is
 * aborted mid-way leaves nothing in the store, a replica set refuses its local store before any
 * work, and the rows a candidate hands back are held to --max-output-bytes.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import { inline } from '../kernel/engine/index.js';
import { evaluate, type CandidateResult } from '../service/evaluation/evaluate.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../service/evaluation/runtime.js';
import type { EvalSpec, EvalRetriever } from '../service/evaluation/spec.js';
import { checkStoreRetriever, type EvalStores } from '../service/evaluation/store-retriever.js';
import { validateSteps, type Step } from '../service/pipelines/steps.js';
import { resolveSettings } from '../service/settings.js';
import { Stores } from '../service/stores/stores.js';
import { pgliteEngine } from './helpers/pglite.js';

const registry = await discover();
const DOCS = [
  { id: 'rivers', text: 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded.' },
  { id: 'bees', text: 'Bees visit the orchard in April. The honey harvest comes in late summer, after the lavender.' },
];
const QUESTIONS = [
  { question: 'When is the honey harvest?', references: [{ document: 'bees', start_index: 33, end_index: 91 }] },
  { question: 'Where did the farmers take their herds?', references: [{ document: 'rivers', start_index: 30, end_index: 63 }] },
  { question: 'What happened to the water in spring?', references: [{ document: 'rivers', start_index: 64, end_index: 92 }] },
];
const STEPS: Step[] = [{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 12 } }];

let dir: string;
before(() => (dir = mkdtempSync(join(tmpdir(), 'chunkd-evalstore-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

const spec = (retriever: EvalRetriever, k = [1, 3]): EvalSpec => ({
  documents: DOCS,
  questions: QUESTIONS,
  retriever,
  embeddingModel: EMBEDDED_MODEL,
  k,
  locate: 'text',
  unit: 'codepoint',
  detail: true,
});

/** One candidate evaluated through `store`, as the route does it (inline: this thread plays the pool task too). */
async function run(
  stores: EvalStores,
  store: string,
  { signal, maxOutputBytes, mode = 'vector' }: { signal?: AbortSignal; maxOutputBytes?: number; mode?: string } = {},
): Promise<CandidateResult[]> {
  const settings = resolveSettings({ 'data-dir': dir, ...(maxOutputBytes ? { 'max-output-bytes': String(maxOutputBytes) } : {}) }, {});
  const deps: RuntimeDeps = { registry, executor: inline, settings, stores };
  // vector unless asked: a flat vector scan ranks as exact cosine does, so the two sets of rows can be compared whole
  const s = spec(mode === 'default' ? `store:${store}` : `store:${store}:${mode}`);
  checkStoreRetriever(stores, store, s.k, ['body'], mode === 'default' ? undefined : mode);
  const candidate = await stepsCandidate(STEPS, await validateSteps(registry, STEPS, ['candidate']), 'codepoint', deps);
  const services = await evalServices(deps, EMBEDDED_MODEL, store, mode === 'default' ? undefined : mode);
  return (await evaluate(s, [candidate], { ...services, ...(signal ? { signal } : {}) })).results;
}

/** The store as the evaluation sees it, with a hook before each write, settle and search (to fail or abort there). */
function hooked(real: Stores, hook: (call: 'write' | 'settle' | 'search', n: number) => void): EvalStores {
  let n = 0;
  return {
    names: () => real.names(),
    handshakeOf: (s) => real.handshakeOf(s),
    modes: (s) => real.modes(s),
    checkWritable: (s) => real.checkWritable(s),
    dropCollection: (s, c, d) => real.dropCollection(s, c, d),
    settle: async (s, c) => {
      hook('settle', ++n);
      return real.settle(s, c);
    },
    writeMany: async (...args) => {
      hook('write', ++n);
      return real.writeMany(...args);
    },
    search: async (...args) => {
      hook('search', ++n);
      return real.search(...args);
    },
  };
}

const collections = async (stores: Stores, name: string) => (await stores.list()).find((s) => s.name === name)!.collections;

describe('LanceDB (the embedded default)', () => {
  let stores: Stores;
  before(() => (stores = Stores.fromSettings(registry, { stores: '', dataDir: dir, databaseUrl: '' })));
  after(() => stores.close());

  test('store rows equal to the exact-cosine rows (a flat scan), and the store left empty', async () => {
    const rows = await run(stores, 'default');
    assert.deepEqual(
      rows.map((r) => [r.retriever, r.k]),
      [
        ['store:default:vector', 1],
        ['store:default:vector', 3],
        ['embeddings', 1],
        ['embeddings', 3],
      ],
    );
    assert.deepEqual(rows[0]!.questions, rows[2]!.questions);
    assert.deepEqual(rows[1]!.questions, rows[3]!.questions);
    assert.deepEqual(await collections(stores, 'default'), []);
  });

  test('a search that fails: its error is the answer, and nothing is left in the store', async () => {
    const seen: string[] = [];
    const failing = hooked(stores, (call) => {
      seen.push(call);
      if (call === 'search' && seen.filter((c) => c === 'search').length === 2) throw new Error('the store went away');
    });
    await assert.rejects(run(failing, 'default'), /the store went away/);
    // The collection is settled (every row in its indexes) once written, before the first search.
    assert.deepEqual(seen, ['write', 'settle', 'search', 'search'], 'it failed after the rows were written');
    assert.deepEqual(await collections(stores, 'default'), []);
  });

  test('aborted after the write, or during the searches: nothing is left in the store', async () => {
    for (const at of ['write', 'search'] as const) {
      const abort = new AbortController();
      const seen: string[] = [];
      const aborting = hooked(stores, (call) => {
        seen.push(call);
        if (call === at) abort.abort();
      });
      await assert.rejects(run(aborting, 'default', { signal: abort.signal }), (e: Error) => e.name === 'AbortError');
      assert.equal(seen[0], 'write', `${at}: the rows were written first`);
      assert.deepEqual(await collections(stores, 'default'), [], `${at}: nothing left`);
    }
  });

  test('413 before the rows leave the candidate when they would pass --max-output-bytes; nothing written', async () => {
    // About 8 chunks: their texts and spans fit 2,000 bytes, their 100-number vectors (400 bytes each) do not.
    await assert.rejects(
      run(stores, 'default', { maxOutputBytes: 2000 }),
      (e: { status: number; message: string }) =>
        e.status === 413 &&
        /chunks and vectors for the store would take [\d,]+ bytes; the limit is 2,000.*--max-output-bytes \(CHUNKD_MAX_OUTPUT_BYTES\)/.test(e.message),
    );
    assert.deepEqual(await collections(stores, 'default'), []);
  });

  test('a replica set refuses its local store before any work, as a write to it is refused', async () => {
    const replica = Stores.fromSettings(registry, { stores: '', dataDir: dir, databaseUrl: 'postgres://127.0.0.1:1/none' });
    try {
      assert.throws(
        () => checkStoreRetriever(replica, 'default', [5]),
        (e: { status: number; message: string }) => e.status === 409 && /on this replica's disk.*--stores \(CHUNKD_STORES\)/.test(e.message),
      );
    } finally {
      await replica.close();
    }
  });
});

describe('pgvector on a real PostgreSQL engine (PGlite over the wire protocol)', () => {
  let engine: Awaited<ReturnType<typeof pgliteEngine>>;
  let stores: Stores;
  before(async () => {
    engine = await pgliteEngine();
    stores = Stores.fromSettings(registry, {
      stores: JSON.stringify([{ name: 'pg', handshake: 'pgvector', url: engine.url, pool_size: 1 }]),
      dataDir: dir,
      databaseUrl: '',
    });
  });
  after(async () => {
    await stores?.close();
    await engine?.stop();
  });

  test('rows for the store beside exact cosine; nothing left: no table, no recorded model', async () => {
    const rows = await run(stores, 'pg');
    assert.deepEqual(
      rows.map((r) => [r.retriever, r.k]),
      [
        ['store:pg:vector', 1],
        ['store:pg:vector', 3],
        ['embeddings', 1],
        ['embeddings', 3],
      ],
    );
    // Eight rows, far fewer than the HNSW index's candidate list (ef_search 40): its search reaches them all, as an exact one does.
    assert.deepEqual(rows[1]!.questions, rows[3]!.questions);
    assert.equal(rows[1]!.questions![0]!.retrieved.length, 3);
    assert.deepEqual(await collections(stores, 'pg'), []);
  });
});
