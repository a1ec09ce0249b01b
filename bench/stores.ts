/**
 * `node --import tsx bench/stores.ts [--quick] [--sizes 100000,1000000] [--pg-url URL] [--pg-max N] [--only lancedb|pgvector] [--json]`:
 * the stores section of bench/results.md. Real chunks (bench/stores/corpus.ts: text this machine
 * has, chunked by a shipped preset, embedded by the built-in model at its 100 dimensions, cached
 * under bench/.cache) are written through each handshake's plugin, as a job's batches do (whole
 * documents, ~5,000 rows a call), and, in the same run, into the same engine directly: LanceDB's own
 * `table.add` of the same rows (as plain objects, the way its docs and Chonkie's handshake pass
 * them, and as Arrow built by column), and for pgvector one INSERT … SELECT unnest per batch into a
 * table with the same indexes. Then the benchmark's questions (CHUNKD_QUALITY_DATA), embedded by
 * the same model, are searched (k = 10) through the plugin and directly: p50/p99, and recall@10
 * against the exact (flat) top 10 beside every approximate search. Text queries (the same
 * questions) time the full-text index. The process's RSS is sampled after every batch: a bounded
 * figure stays flat from the middle of the writes to their end.
 *
 * LanceDB runs embedded under a temporary directory. pgvector runs only on a real PostgreSQL
 * server given by --pg-url (CHUNKD_BENCH_PG_URL) whose database has the extension; without one its
 * rows say so. Never part of `npm test`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, Index, type Table } from '@lancedb/lancedb';
import pg from 'pg';
import { discover } from './../kernel/discovery.js';
import type { HandshakeImpl } from '../kernel/handshake.js';
import { rowSchema, toArrow } from '../plugins/lancedb/arrow.js';
import { FTS_COLUMN, FTS_OPTIONS, nprobesFor, VECTOR_SEARCH } from '../plugins/lancedb/upkeep.js';
import type { LanceStoreUpkeep } from '../plugins/lancedb/impl.js';
import { createRows, tableName, tables } from '../plugins/pgvector/sql.js';
import { HNSW_EF_CONSTRUCTION } from '../plugins/pgvector/index.js';
import { corpus, queries, type CorpusInfo, type Query } from './stores/corpus.js';
import { exactTop, loadAverage, pgVector, recallAt, timeSearches } from './stores/measure.js';
import { docBatches, lanceRecord, pgRawInsert, type DocBatch } from './stores/rows.js';
import { engineSearch, measurePgSearches, pgServer } from './stores/pg-bench.js';
import { num, table as mdTable } from './table.js';

// As the plugin's load() does, and before this process's first LanceDB call creates the pool: with
// two threads LanceDB's index work waits on itself (plugins/lancedb/README.md).
process.env.LANCE_CPU_THREADS ??= String(Math.max(4, availableParallelism() + 2));

export const STORES_TITLE = 'Stores (real chunks: writes and searches against the raw engine)';
const BATCH = 5000;
const K = 10;

export interface StoreRowResult {
  store: string;
  size: number;
  what: string;
  chunkd?: number;
  raw?: number;
  unit: string;
  /** ours/raw as a speed (for ms figures raw/ours). */
  ratio?: number;
  recall?: number;
  note?: string;
  load: string;
}

const load = () => loadAverage();
const rssMiB = () => Math.round(process.memoryUsage().rss / 2 ** 20);
const log = (l: string) => process.stderr.write(`${l}\n`);

/** Writes through `write`, one batch at a time; the write calls' time alone (reading the cache is not counted), and RSS along the way. */
async function timeWrites(info: CorpusInfo, size: number, write: (b: DocBatch) => Promise<void>) {
  let ms = 0;
  let rows = 0;
  let rssHalf = 0;
  let rssPeak = 0;
  for (const b of docBatches(info, size, BATCH)) {
    const t = performance.now();
    await write(b);
    ms += performance.now() - t;
    rows += b.rows;
    const rss = rssMiB();
    rssPeak = Math.max(rssPeak, rss);
    if (!rssHalf && rows >= size / 2) rssHalf = rss;
  }
  return { perS: rows / (ms / 1000), rows, rssHalf, rssEnd: rssMiB(), rssPeak };
}

async function lancedb(size: number, info: CorpusInfo, qs: Query[], plugin: { connect(c: unknown): Promise<HandshakeImpl> }): Promise<StoreRowResult[]> {
  const out: StoreRowResult[] = [];
  const row = (r: Omit<StoreRowResult, 'store' | 'size' | 'load'>) => {
    out.push({ store: 'lancedb', size, load: load(), ...r });
    log(`  lancedb ${size}: ${r.what}: ${r.chunkd ?? ''} vs ${r.raw ?? ''} ${r.unit}${r.recall === undefined ? '' : ` recall ${r.recall.toFixed(3)}`}`);
  };
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-bench-stores-'));
  try {
    // The raw engine: the same rows, the same batches, `table.add`, in tables of their own.
    const db = await connect(join(dir, 'raw'));
    // Plain objects convert at ~2,000–6,000 rows/s here: past 10^5 that row would take longer than the rest.
    let rawPlain: Awaited<ReturnType<typeof timeWrites>> | undefined;
    if (size <= 100_000) {
      let plain: Table | undefined;
      rawPlain = await timeWrites(info, size, async (b) => {
        const records = b.docs.flatMap((d) => d.rows.map(lanceRecord));
        if (!plain) plain = await db.createTable('plain', records);
        else await plain.add(records);
      });
      plain!.close();
      await db.dropTable('plain');
    }
    let arrowTable: Table | undefined;
    const rawArrow = await timeWrites(info, size, async (b) => {
      const data = toArrow(
        rowSchema(info.dimension),
        b.docs.flatMap((d) => d.rows),
      );
      if (!arrowTable) arrowTable = await db.createTable('arrow', data);
      else await arrowTable.add(data);
    });

    // chunkd: the plugin, with its defaults (upkeep after writes settle; the vector index past 50,000 rows).
    const store = (await plugin.connect({ path: join(dir, 'chunkd') })) as HandshakeImpl & LanceStoreUpkeep;
    const meta = { model: info.model, dimension: info.dimension };
    const ours = await timeWrites(info, size, (b) => store.writeMany!('bench', b.docs, meta));
    if (rawPlain)
      row({ what: 'write, chunks/s (vs raw add of plain objects)', chunkd: ours.perS, raw: rawPlain.perS, unit: 'chunks/s', ratio: ours.perS / rawPlain.perS });
    row({
      what: 'write, chunks/s (vs raw add of Arrow built by column)',
      chunkd: ours.perS,
      raw: rawArrow.perS,
      unit: 'chunks/s',
      ratio: ours.perS / rawArrow.perS,
    });
    row({
      what: 'RSS at half / end of the writes, MiB (raw: Arrow add)',
      chunkd: ours.rssEnd,
      raw: rawArrow.rssEnd,
      unit: 'MiB',
      note: `chunkd ${ours.rssHalf} → ${ours.rssEnd} (peak ${ours.rssPeak}); raw ${rawArrow.rssHalf} → ${rawArrow.rssEnd}`,
    });

    // Upkeep after the writes settle: compaction, full-text and document indexes, the vector index. The raw engine gets the same indexes by hand.
    let t = performance.now();
    await store.settled();
    const upkeepS = (performance.now() - t) / 1000;
    const indexed = await connect(join(dir, 'chunkd'));
    const stats = await (await indexed.openTable('bench')).indexStats('vector_idx').catch(() => undefined);
    indexed.close();
    if (size <= 100_000) {
      t = performance.now();
      await arrowTable!.optimize();
      await arrowTable!.createIndex('text', { config: Index.fts(FTS_OPTIONS) });
      const rawIndexS = (performance.now() - t) / 1000;
      row({
        what: 'indexing after the writes, s (chunkd: upkeep once writes settle, vector index included; raw: optimize + the full-text index, no vector index)',
        chunkd: upkeepS,
        raw: rawIndexS,
        unit: 's',
        note: stats ? `vector index: ${stats.indexType}, ${stats.numIndexedRows.toLocaleString('en')} rows` : 'no vector index (below the threshold)',
      });
      row({
        what: 'write + indexing, chunks/s',
        chunkd: ours.rows / (ours.rows / ours.perS + upkeepS),
        raw: rawArrow.rows / (rawArrow.rows / rawArrow.perS + rawIndexS),
        unit: 'chunks/s',
        ratio: (rawArrow.rows / rawArrow.perS + rawIndexS) / (ours.rows / ours.perS + upkeepS),
      });
    } else
      row({
        what: 'indexing after the writes, s (upkeep once writes settle: compaction, full-text and document indexes, the vector index)',
        chunkd: upkeepS,
        unit: 's',
        note: `${stats ? `vector index: ${stats.indexType}, ${stats.numIndexedRows.toLocaleString('en')} rows` : 'no vector index'}; the raw engine's indexing is timed at 10^5 only (it doubles the run)`,
      });

    // Searches: the plugin, and the engine itself on the plugin's own table (same index, same settings), and exact.
    const raw = await connect(join(dir, 'chunkd'));
    const table = await raw.openTable('bench');
    // As the plugin probes its index: a share of its partitions (plugins/lancedb/upkeep.ts).
    const nprobes = nprobesFor(stats?.numIndexedRows ?? 0);
    const indices = (await table.listIndices()).map((i) => `${i.name} (${i.indexType})`).join(', ');
    const exact = await timeSearches(qs, async (q) =>
      (await table.vectorSearch(q.vector).distanceType('cosine').bypassVectorIndex().limit(K).select(['id']).toArray()).map((r) => r.id as string),
    );
    const mine = await timeSearches(qs, async (q) => (await store.search('bench', { embedding: Array.from(q.vector), k: K })).map((h) => h.id));
    const engine = await timeSearches(qs, async (q) =>
      (await table.vectorSearch(q.vector).distanceType('cosine').nprobes(nprobes).refineFactor(VECTOR_SEARCH.refineFactor).limit(K).toArray()).map(
        (r) => r.id as string,
      ),
    );
    const approximate = indices.includes('vector_idx');
    row({
      what: `vector search p50, ms (raw: the engine on the same table and index)`,
      chunkd: mine.p50,
      raw: engine.p50,
      unit: 'ms',
      ratio: engine.p50 / mine.p50,
      recall: recallAt(mine.found, exact.found),
      note: approximate
        ? `indexes: ${indices}; nprobes ${nprobes}, refine_factor ${VECTOR_SEARCH.refineFactor}`
        : `exact (below the threshold); indexes: ${indices}`,
    });
    row({
      what: 'vector search p99, ms',
      chunkd: mine.p99,
      raw: engine.p99,
      unit: 'ms',
      ratio: engine.p99 / mine.p99,
      recall: recallAt(engine.found, exact.found),
    });
    row({ what: 'exact (flat) vector search p50 / p99, ms: the engine, no index', raw: exact.p50, unit: 'ms', note: `p99 ${num(exact.p99)} ms` });
    const text = await timeSearches(qs, async (q) => (await store.search('bench', { text: q.text, k: K })).map((h) => h.id));
    const rawText = await timeSearches(qs, async (q) => (await table.search(q.text, 'fts', FTS_COLUMN).limit(K).toArray()).map((r) => r.id as string));
    row({
      what: 'text search (BM25) p50, ms',
      chunkd: text.p50,
      raw: rawText.p50,
      unit: 'ms',
      ratio: rawText.p50 / text.p50,
      note: `p99 ${num(text.p99)} vs ${num(rawText.p99)} ms`,
    });
    table.close();
    raw.close();
    arrowTable!.close();
    db.close();
    await store.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}

async function pgvector(
  size: number,
  info: CorpusInfo,
  qs: Query[],
  url: string,
  plugin: { connect(c: unknown): Promise<HandshakeImpl> },
): Promise<StoreRowResult[]> {
  const out: StoreRowResult[] = [];
  const row = (r: Omit<StoreRowResult, 'store' | 'size' | 'load'>) => {
    out.push({ store: 'pgvector', size, load: load(), ...r });
    log(`  pgvector ${size}: ${r.what}: ${r.chunkd ?? ''} vs ${r.raw ?? ''} ${r.unit}${r.recall === undefined ? '' : ` recall ${r.recall.toFixed(3)}`}`);
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const prefix = `bench${process.pid}_`;
  try {
    const server = await pgServer(client);
    // The raw engine: a table with the plugin's columns and indexes, one INSERT … SELECT unnest per batch.
    const rawTable = tables(`${prefix}raw_`, 'bench').rows; // quoted, for the queries
    for (const sql of createRows(tableName(`${prefix}raw_`, 'bench'), info.dimension, { m: 16, efConstruction: HNSW_EF_CONSTRUCTION })) await client.query(sql);
    const raw = await timeWrites(info, size, (b) =>
      pgRawInsert(
        client,
        rawTable,
        b.docs.flatMap((d) => d.rows),
      ),
    );
    const store = await plugin.connect({ url, table_prefix: prefix, pool_size: 4 });
    const meta = { model: info.model, dimension: info.dimension };
    const ours = await timeWrites(info, size, (b) => store.writeMany!('bench', b.docs, meta));
    row({
      what: 'write, chunks/s (HNSW, GIN and document indexes kept by the server)',
      chunkd: ours.perS,
      raw: raw.perS,
      unit: 'chunks/s',
      ratio: ours.perS / raw.perS,
      note: server,
    });
    row({
      what: 'RSS at half / end of the writes, MiB (this process: the server is another)',
      chunkd: ours.rssEnd,
      unit: 'MiB',
      note: `${ours.rssHalf} → ${ours.rssEnd}`,
    });
    const rows = tables(prefix, 'bench').rows;
    const { exact, plugin: mine, pluginEfSearch, engine, engineEfSearch } = await measurePgSearches(client, store, 'bench', rows, qs);
    row({
      what: 'vector search p50, ms (HNSW; raw: the same SQL on one connection)',
      chunkd: mine.p50,
      raw: engine.p50,
      unit: 'ms',
      ratio: engine.p50 / mine.p50,
      recall: recallAt(mine.found, exact.found),
      note: `hnsw.ef_search ${pluginEfSearch} (the plugin's; raw: ${engineEfSearch}), m 16, ef_construction ${HNSW_EF_CONSTRUCTION}`,
    });
    row({
      what: 'vector search p99, ms',
      chunkd: mine.p99,
      raw: engine.p99,
      unit: 'ms',
      ratio: engine.p99 / mine.p99,
      recall: recallAt(engine.found, exact.found),
    });
    row({ what: 'exact vector search p50 / p99, ms: the server, index scans off', raw: exact.p50, unit: 'ms', note: `p99 ${num(exact.p99)} ms` });
    for (const ef of [100, 200, 400]) {
      await client.query(`SET hnsw.ef_search = ${ef}`);
      const tuned = await timeSearches(qs, engineSearch(client, rows));
      row({
        what: `vector search p50, ms: the engine with hnsw.ef_search ${ef}`,
        raw: tuned.p50,
        unit: 'ms',
        recall: recallAt(tuned.found, exact.found),
        note: `p99 ${num(tuned.p99)} ms`,
      });
    }
    await client.query('RESET hnsw.ef_search');
    const text = await timeSearches(qs, async (q) => (await store.search('bench', { text: q.text, k: K })).map((h) => h.id));
    row({ what: 'text search (tsvector, GIN) p50, ms', chunkd: text.p50, unit: 'ms', note: `p99 ${num(text.p99)} ms` });
    await store.drop!('bench');
    await store.close();
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${tables(`${prefix}raw_`, 'bench').rows}`).catch(() => {});
    await client.end();
  }
  return out;
}

export async function runStores(options: {
  quick: boolean;
  sizes?: number[];
  pgUrl?: string;
  pgMax?: number;
  only?: string;
  partial?: (rows: StoreRowResult[]) => void;
}): Promise<{ rows: StoreRowResult[]; about: string }> {
  const sizes = options.sizes ?? (options.quick ? [10_000] : [100_000, 1_000_000]);
  const info = await corpus(Math.max(...sizes));
  const { from, queries: qs } = await queries();
  const registry = await discover();
  const rows: StoreRowResult[] = [];
  for (const size of sizes) {
    if (size > info.count) throw new Error(`the corpus holds ${info.count} chunks, fewer than ${size}`);
    if (options.only && options.only !== 'lancedb') continue;
    log(`stores: lancedb at ${size}`);
    rows.push(...(await lancedb(size, info, qs, registry.get('handshake', 'lancedb') as never)));
    options.partial?.(rows);
  }
  // pgvector after LanceDB: a real server keeps HNSW row by row (~170 chunks/s here), so it runs at 10^5 at most unless told.
  for (const size of sizes) {
    if (options.pgUrl && size <= (options.pgMax ?? 100_000) && (!options.only || options.only === 'pgvector')) {
      log(`stores: pgvector at ${size}`);
      rows.push(...(await pgvector(size, info, qs, options.pgUrl, registry.get('handshake', 'pgvector') as never)));
      options.partial?.(rows);
    }
  }
  const sources = Object.entries(info.bySource)
    .map(([s, n]) => `${s} ${n.toLocaleString('en')}`)
    .join(', ');
  const about = [
    `Real chunks: ${info.count.toLocaleString('en')} chunks cached from ${info.documents.toLocaleString('en')} files (${sources}), cut by the preset ${info.preset}, kept at 500–2,000 characters (mean ${info.meanChars}), each with its text and metadata, embedded by ${info.model} (${info.dimension} dimensions). A size takes the first chunks: the documentation first, source code only past ~565,000.`,
    `Queries: ${from}, embedded by the same model; the same texts as full-text queries. k = ${K}.`,
    `Writes: batches of whole documents, ~${BATCH.toLocaleString('en')} rows a call, as a job writes; the time of the write calls alone. The raw rows are the engine's own call on the same rows in the same run; the ratio is chunkd's speed over the raw engine's (for latencies, raw ms over chunkd ms). Recall@10 is against the exact top 10 of the same table.`,
    options.pgUrl ? '' : 'pgvector: not run here: no real PostgreSQL server was given (--pg-url or CHUNKD_BENCH_PG_URL).',
  ]
    .filter(Boolean)
    .join(' ');
  return { rows, about };
}

export function storesTable(rows: StoreRowResult[]): string {
  return mdTable(
    ['store', 'chunks', 'measure', 'chunkd', 'raw engine', 'ratio', 'recall@10', 'note', 'load average'],
    rows.map((r) => [
      r.store,
      r.size.toLocaleString('en'),
      r.what,
      num(r.chunkd),
      num(r.raw),
      r.ratio === undefined ? '—' : `${num(r.ratio)}×`,
      r.recall === undefined ? '—' : r.recall.toFixed(3),
      r.note ?? '',
      r.load,
    ]),
  );
}

async function main() {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      sizes: { type: 'string' },
      'pg-url': { type: 'string' },
      'pg-max': { type: 'string' },
      json: { type: 'boolean', default: false },
      partial: { type: 'string' },
      only: { type: 'string' },
    },
  });
  const sizes = values.sizes?.split(',').map(Number);
  const partial = values.partial ? (rows: StoreRowResult[]) => writeFileSync(values.partial!, storesTable(rows)) : undefined;
  const { rows, about } = await runStores({
    quick: values.quick!,
    sizes,
    pgUrl: values['pg-url'] ?? process.env.CHUNKD_BENCH_PG_URL,
    pgMax: values['pg-max'] ? Number(values['pg-max']) : undefined,
    only: values.only,
    partial,
  });
  if (values.json) console.log(JSON.stringify({ rows, about }));
  else console.log(`${about}\n\n${storesTable(rows)}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
