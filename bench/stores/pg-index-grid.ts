/**
 * `node --import tsx bench/stores/pg-index-grid.ts --pg-url URL [--chunks 100000] [--grid 16:64,16:200] [--ef-search 40,400] [--bulk]`:
 * which HNSW settings the pgvector handshake should build and search with, chosen by recall. The
 * stores bench's real chunks' vectors go into a table on a real PostgreSQL; for each
 * (m, ef_construction) of the grid, an HNSW index (cosine, as plugins/pgvector/sql.ts makes it) is
 * made on an empty table and the rows inserted into it, as the plugin writes (--bulk: built over the
 * loaded rows instead, which on this machine gave recall that varied by up to 0.15 from one build of
 * the same settings to the next). The benchmark's questions (embedded with the same model) are
 * searched at each hnsw.ef_search: p50/p99 latency and recall@10 against the exact top 10 of the
 * same rows (index scans off). For the choice in plugins/pgvector; not a suite of `npm run bench`.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { corpus, queries } from './corpus.js';
import { docBatches } from './rows.js';
import { loadAverage, pgVector, recallAt, timeSearches } from './measure.js';

const { values } = parseArgs({
  options: {
    chunks: { type: 'string', default: '100000' },
    'pg-url': { type: 'string' },
    /** m:ef_construction pairs, comma-separated. */
    grid: { type: 'string', default: '16:64,16:200,32:200' },
    'ef-search': { type: 'string', default: '40,100,200,400' },
    /** Build each index over the loaded rows (pgvector's bulk build) instead of inserting the rows into it, as the plugin does. */
    bulk: { type: 'boolean', default: false },
  },
});
const url = values['pg-url'] ?? process.env.CHUNKD_BENCH_PG_URL;
if (!url) throw new Error('Name a real PostgreSQL with pgvector: --pg-url URL (or CHUNKD_BENCH_PG_URL).');
const N = Number(values.chunks);
const K = 10;
const GRID = values.grid!.split(',').map((pair) => {
  const [m, efConstruction] = pair.split(':').map(Number);
  return { m: m!, efConstruction: efConstruction! };
});
const EF_SEARCH = values['ef-search']!.split(',').map(Number);

const load = () => loadAverage();
const log = (s: string) => console.error(s);
const info = await corpus(N);
const { from, queries: qs } = await queries();
const vec = pgVector;
const client = new pg.Client({ connectionString: url });
await client.connect();
const table = `pg_index_grid_${process.pid}`;
const hnsw = (m: number, efConstruction: number) =>
  `CREATE INDEX ${table}_hnsw ON ${table} USING hnsw (embedding vector_cosine_ops) WITH (m = ${m}, ef_construction = ${efConstruction})`;
/** The rows into the (fresh) table, in statements of ~5,000 as the plugin's writes go: its time in seconds. */
async function fill(): Promise<number> {
  const t = performance.now();
  for (const b of docBatches(info, N, 5000)) {
    const rows = b.docs.flatMap((d) => d.rows);
    await client.query(`INSERT INTO ${table} SELECT * FROM unnest($1::text[], $2::vector[])`, [
      rows.map((r) => r.id),
      rows.map((r) => vec(r.embedding as Float32Array)),
    ]);
  }
  return (performance.now() - t) / 1000;
}
const createTable = async () => {
  await client.query(`DROP TABLE IF EXISTS ${table}`);
  await client.query(`CREATE TABLE ${table} (id text PRIMARY KEY, embedding vector(${info.dimension}) NOT NULL)`);
};
try {
  await createTable();
  await fill();
  const count = Number((await client.query(`SELECT count(*) FROM ${table}`)).rows[0].count);
  log(`${count} rows of ${info.dimension} dimensions; ${qs.length} queries: ${from}`);
  const timed = () =>
    timeSearches(qs, async (q) =>
      (await client.query(`SELECT id FROM ${table} ORDER BY embedding <=> $1::vector LIMIT ${K}`, [vec(q.vector)])).rows.map((r) => r.id as string),
    );
  await client.query('BEGIN');
  await client.query('SET LOCAL enable_indexscan = off');
  const exact = await timed();
  await client.query('COMMIT');
  const how = values.bulk ? 'built over the loaded rows' : 'made on the empty table, the rows inserted into it (as the plugin writes)';
  console.log(`\n${count.toLocaleString('en')} chunks (${info.preset}), ${qs.length} queries; exact p50 ${exact.p50.toFixed(1)} ms; each index ${how}\n`);
  console.log(`| m | ef_construction | ${values.bulk ? 'build' : 'insert'} s | ef_search | recall@10 | p50 ms | p99 ms | load |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---|');
  for (const { m, efConstruction } of GRID) {
    let seconds: number;
    if (values.bulk) {
      await client.query(`DROP INDEX IF EXISTS ${table}_hnsw`);
      const t = performance.now();
      await client.query(hnsw(m, efConstruction));
      seconds = (performance.now() - t) / 1000;
    } else {
      await createTable();
      await client.query(hnsw(m, efConstruction));
      seconds = await fill();
    }
    for (const ef of EF_SEARCH) {
      await client.query(`SET hnsw.ef_search = ${ef}`);
      const r = await timed();
      console.log(
        `| ${m} | ${efConstruction} | ${seconds.toFixed(1)} | ${ef} | ${recallAt(r.found, exact.found).toFixed(3)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${load()} |`,
      );
    }
  }
} finally {
  await client.query(`DROP TABLE IF EXISTS ${table}`).catch(() => {});
  await client.end();
}
