/**
 * `node --import tsx bench/stores/index-grid.ts [--chunks 100000]`: which approximate vector index
 * LanceDB should build, chosen by recall. The stores bench's real chunks are written into one table
 * (raw `add`); each index below is built on it in turn, and the benchmark's questions (embedded with
 * the same model) are searched with each setting: p50/p99 latency and recall@10 against the exact
 * (flat) top 10 of the same table. For the choice in plugins/lancedb/upkeep.ts; not a suite of
 * `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, Index, type Table, type VectorQuery } from '@lancedb/lancedb';
import { rowSchema, toArrow } from '../../plugins/lancedb/arrow.js';
import { corpus, queries } from './corpus.js';
import { docBatches } from './rows.js';
import { exactTop, loadAverage, percentile, recallAt } from './measure.js';

process.env.LANCE_CPU_THREADS ??= '4';
const { values } = parseArgs({ options: { chunks: { type: 'string', default: '100000' }, only: { type: 'string' } } });
const N = Number(values.chunks);
const info = await corpus(N);
const { from, queries: qs } = await queries();
const load = () => loadAverage(2);
const sqrtN = Math.round(Math.sqrt(N));

interface Setting {
  label: string;
  tune: (q: VectorQuery) => VectorQuery;
}
// Training costs: on this 2-core machine LanceDB's default training (50 k-means iterations on 256
// samples a partition, and for PQ a codebook per sub-vector) took 722 s for IVF_PQ at 10^5 under a
// load average of 12; the settings below train on fewer samples and iterations.
const partitions = (n: number) => Math.max(1, Math.round(n));
const GRID: { name: string; index: Index; settings: Setting[] }[] = [
  ...[Math.round(sqrtN / 2), sqrtN].map((p) => ({
    name: `IVF_FLAT, ${p} partitions, 10 iterations, 64 samples a partition`,
    index: Index.ivfFlat({ distanceType: 'cosine', numPartitions: partitions(p), maxIterations: 10, sampleRate: 64 }),
    settings: [5, 10, 20, 40].map((nprobes) => ({ label: `nprobes ${nprobes}`, tune: (q: VectorQuery) => q.nprobes(nprobes) })),
  })),
  {
    name: `IVF_PQ, ${sqrtN} partitions, 25 sub-vectors (4 dimensions each), 10 iterations, 64 samples a partition`,
    index: Index.ivfPq({ distanceType: 'cosine', numPartitions: sqrtN, numSubVectors: 25, maxIterations: 10, sampleRate: 64 }),
    settings: [10, 20, 40, 60, 80, 120].flatMap((nprobes) =>
      [10, 20, 30].map((refine) => ({ label: `nprobes ${nprobes}, refine ${refine}`, tune: (q: VectorQuery) => q.nprobes(nprobes).refineFactor(refine) })),
    ),
  },
  {
    name: `IVF_HNSW_SQ, ${Math.max(1, Math.round(N / 250_000))} partitions, m 20, ef_construction 150`,
    index: Index.hnswSq({
      distanceType: 'cosine',
      numPartitions: Math.max(1, Math.round(N / 250_000)),
      m: 20,
      efConstruction: 150,
      maxIterations: 10,
      sampleRate: 64,
    }),
    settings: [50, 100, 200].map((ef) => ({ label: `ef ${ef}, refine 5`, tune: (q: VectorQuery) => q.ef(ef).refineFactor(5) })),
  },
];

const dir = mkdtempSync(join(tmpdir(), 'chunkd-grid-'));
try {
  const db = await connect(dir);
  let table: Table | undefined;
  for (const b of docBatches(info, N, 20_000)) {
    const data = toArrow(
      rowSchema(info.dimension),
      b.docs.flatMap((d) => d.rows),
    );
    if (!table) table = await db.createTable('grid', data);
    else await table.add(data);
  }
  const t = table!;
  await t.optimize();
  const exact = await exactTop(t, qs, 10);
  console.log(`${(await t.countRows()).toLocaleString('en')} chunks; queries: ${from}; load average ${load()}\n`);
  console.log('| index | build (s) | search setting | p50 (ms) | p99 (ms) | recall@10 | load |\n|---|---:|---|---:|---:|---:|---|');
  for (const g of GRID) {
    if (values.only && !g.name.includes(values.only)) continue;
    const started = performance.now();
    await t.createIndex('vector', { config: g.index, replace: true });
    const build = (performance.now() - started) / 1000;
    for (const s of g.settings) {
      const times: number[] = [];
      const found: string[][] = [];
      for (const q of qs) {
        const t0 = performance.now();
        const rows = await s.tune(t.vectorSearch(q.vector).distanceType('cosine').limit(10).select(['id'])).toArray();
        times.push(performance.now() - t0);
        found.push(rows.map((r) => r.id as string));
      }
      console.log(
        `| ${g.name} | ${build.toFixed(1)} | ${s.label} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${recallAt(found, exact).toFixed(3)} | ${load()} |`,
      );
    }
  }
  t.close();
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
