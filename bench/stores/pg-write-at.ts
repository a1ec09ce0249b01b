/**
 * `CHUNKD_QUALITY_DATA=… node --import tsx bench/stores/pg-write-at.ts --pg-url URL [--base 900000] [--chunks 50000]`:
 * the pgvector handshake's writes and searches in a collection that already holds `base` real
 * chunks, on a real PostgreSQL. Filling 10^6 chunks into an HNSW index kept row by row takes most
 * of an hour here, and the stores bench would do it twice (plugin and raw engine), so the first
 * `base` rows go into the plugin's own table (made by its first write) with its HNSW index dropped,
 * and that index is then built over them from the plugin's own definition (give the build memory
 * in the URL: `?options=-c maintenance_work_mem=2GB`). Then, with every index kept by the server,
 * the next `chunks` rows are written through the plugin (`writeMany`, batches of ~5,000 rows of
 * whole documents, as a job writes) and the `chunks` after those by the raw engine's INSERT
 * (bench/stores/rows.ts), into the same table; then the plugin's vector search, the same SQL on
 * one connection at that connection's ef_search (pgvector's default 40 unless the URL sets it),
 * and recall@10 against exact search of the same rows (bench/stores/pg-bench.ts). Prints a
 * markdown table. Not a suite of `npm run bench` (~35 min).
 * The URL's `options` come after the plugin's own, which keeps its `-c hnsw.ef_search`.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { HNSW_EF_CONSTRUCTION } from '../../plugins/pgvector/index.js';
import { createRows, tableName, tables } from '../../plugins/pgvector/sql.js';
import { log, openPgBench } from './pg-bench.js';
import { docBatches, pgRawInsert } from './rows.js';

const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    base: { type: 'string', default: '900000' },
    chunks: { type: 'string', default: '50000' },
  },
});
const BASE = Number(values.base);
const N = Number(values.chunks);
const BATCH = 5_000;
const { info, client, store, meta, prefix, row, search, finish, close } = await openPgBench(
  values['pg-url'] ?? process.env.CHUNKD_BENCH_PG_URL,
  'benchat',
  BASE + 2 * N,
);
const rows = tables(prefix, 'bench').rows;
const hnsw = createRows(tableName(prefix, 'bench'), info.dimension, { m: 16, efConstruction: HNSW_EF_CONSTRUCTION }).find((s) => s.includes('USING hnsw'))!;

try {
  let written = 0;
  let ours = { rows: 0, ms: 0 };
  let raw = { rows: 0, ms: 0 };
  let indexed = false;
  for (const b of docBatches(info, BASE + 2 * N, BATCH)) {
    const batchRows = b.docs.flatMap((d) => d.rows);
    if (written === 0) {
      // The plugin makes its table and indexes; its HNSW index goes until the base rows are in.
      await store.writeMany!('bench', b.docs, meta);
      const index = (
        await client.query("SELECT indexname FROM pg_indexes WHERE tablename = $1 AND indexdef ILIKE '%USING hnsw%'", [tableName(prefix, 'bench')])
      ).rows[0];
      await client.query(`DROP INDEX ${pg.escapeIdentifier(index.indexname as string)}`);
    } else if (written < BASE) await pgRawInsert(client, rows, batchRows);
    else {
      if (!indexed) {
        log(`${written} rows loaded; building the HNSW index`);
        const t = performance.now();
        await client.query(hnsw);
        row(
          'HNSW index built over the loaded rows, s',
          ((performance.now() - t) / 1000).toFixed(1),
          `${written.toLocaleString('en')} rows; m 16, ef_construction ${HNSW_EF_CONSTRUCTION} (the plugin's)`,
        );
        indexed = true;
      }
      const t = performance.now();
      if (ours.rows < N) {
        await store.writeMany!('bench', b.docs, meta);
        ours = { rows: ours.rows + b.rows, ms: ours.ms + performance.now() - t };
      } else {
        await pgRawInsert(client, rows, batchRows);
        raw = { rows: raw.rows + b.rows, ms: raw.ms + performance.now() - t };
      }
    }
    written += b.rows;
    if (written % 100_000 < b.rows) log(`${written} rows`);
  }
  const pluginRate = ours.rows / (ours.ms / 1000);
  const rawRate = raw.rows / (raw.ms / 1000);
  row('write through the plugin, chunks/s', pluginRate.toFixed(0), `${ours.rows.toLocaleString('en')} chunks, after ${BASE.toLocaleString('en')}`);
  row(
    'write by the raw engine (INSERT … SELECT unnest), chunks/s',
    rawRate.toFixed(0),
    `${raw.rows.toLocaleString('en')} chunks, after those; ratio ${(pluginRate / rawRate).toFixed(3)}×`,
  );

  await search();
  await finish();
} catch (e) {
  await close();
  throw e;
}
