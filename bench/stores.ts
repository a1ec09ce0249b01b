/**
 * `node --import tsx bench/stores.ts [--chunks 100000] [handshake…]`: store rows for bench/results.md.
 * Writes N chunks (100-dimensional vectors, 100 chunks a document, 50 documents a writeMany call)
 * into each handshake's engine through its plugin, as a job's batches do, then runs 200 searches
 * of k = 10: write throughput (chunks/s), the process RSS after the writes, search p50/p99 (ms).
 * Never part of `npm test`. Each engine is started as the tests start it (test/helpers/engines.ts):
 * lancedb embedded under a temporary directory, pgvector on PGlite (PostgreSQL with the vector
 * extension, in this process) over the wire protocol, one connection.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { discover } from '../kernel/discovery.js';
import { storeChunkId, type HandshakeImpl, type StoreRow } from '../kernel/handshake.js';
import { ENGINES } from '../test/helpers/engines.js';

const DIM = 100;
const PER_DOC = 100;
const DOCS_PER_CALL = Number(process.env.BENCH_DOCS_PER_CALL ?? 50);
const SEARCHES = 200;

/** A deterministic pseudo-random stream (xorshift), so every run writes the same vectors. */
function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32 - 0.5;
  };
}

function rows(document: string, next: () => number): StoreRow[] {
  return Array.from({ length: PER_DOC }, (_, i) => {
    const text = `Chunk ${i} of ${document}: words about rivers, honey and valleys number ${i * 7}.`;
    const chunk = { text, start_index: i * 80, end_index: i * 80 + text.length };
    return { id: storeChunkId(document, chunk), document, ...chunk, token_count: 16, metadata: {}, embedding: Array.from({ length: DIM }, next) };
  });
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

async function bench(name: string, impl: HandshakeImpl, chunks: number) {
  const next = random(42);
  const docs = Math.ceil(chunks / PER_DOC);
  const meta = { model: 'bench/random-100d', dimension: DIM };
  const started = performance.now();
  for (let d = 0; d < docs; d += DOCS_PER_CALL) {
    const batch = Array.from({ length: Math.min(DOCS_PER_CALL, docs - d) }, (_, k) => ({ document: `doc-${d + k}`, rows: rows(`doc-${d + k}`, next) }));
    if (impl.writeMany) await impl.writeMany('bench', batch, meta);
    else for (const b of batch) await impl.write('bench', b.document, b.rows, meta);
  }
  const writeS = (performance.now() - started) / 1000;
  const rssMiB = process.memoryUsage().rss / 2 ** 20;
  const [info] = (await impl.collections()).filter((c) => c.name === 'bench');
  const times: number[] = [];
  for (let i = 0; i < SEARCHES; i++) {
    const q = Array.from({ length: DIM }, next);
    const t = performance.now();
    const hits = await impl.search('bench', { embedding: q, k: 10 });
    times.push(performance.now() - t);
    if (hits.length !== 10) throw new Error(`${name}: a search answered ${hits.length} hits`);
  }
  return { name, chunks: info?.count ?? 0, chunksPerS: Math.round((info?.count ?? 0) / writeS), rssMiB: Math.round(rssMiB), p50: percentile(times, 50), p99: percentile(times, 99) };
}

async function main() {
  const { values, positionals } = parseArgs({ options: { chunks: { type: 'string', default: '100000' } }, allowPositionals: true });
  const chunks = Number(values.chunks);
  const registry = await discover();
  const wanted = positionals.length ? positionals : ['lancedb'];
  const out = [];
  for (const name of wanted) {
    const engine = await ENGINES[name]!();
    const impl = await registry.get('handshake', name).connect(engine.config);
    try {
      out.push(await bench(name, impl, chunks));
    } finally {
      await impl.close();
      await engine.stop();
    }
  }
  console.log('| handshake | chunks | write (chunks/s) | RSS after writes (MiB) | search k=10 p50 (ms) | p99 (ms) |\n|---|---|---|---|---|---|');
  for (const r of out) console.log(`| ${r.name} | ${r.chunks.toLocaleString('en')} | ${r.chunksPerS.toLocaleString('en')} | ${r.rssMiB} | ${r.p50.toFixed(1)} | ${r.p99.toFixed(1)} |`);
}

await main();
