/**
 * `CHUNKD_QUALITY_DATA=… node --import tsx bench/stores/pg-grow.ts --pg-url URL [--chunks 1000000] [--step 100000]`:
 * the pgvector handshake's collection grown from empty to `chunks` real chunks through the plugin
 * alone, as a job writes (`writeMany`, batches of ~5,000 rows of whole documents), every index
 * (HNSW with the plugin's settings, GIN, document) kept by the server row by row from the first
 * write: the write rate of each `step` of rows, then the plugin's vector search over the whole
 * collection with recall@10 against exact search (bench/stores/pg-search.ts). What a user's
 * collection is after its writes, where pg-write-at.ts builds the index in bulk under the first
 * rows and times the raw engine beside the plugin. Prints a markdown table. Not a suite of
 * `npm run bench` (over an hour at 10^6 here).
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { discover } from '../../kernel/discovery.js';
import type { HandshakeImpl } from '../../kernel/handshake.js';
import { tables } from '../../plugins/pgvector/sql.js';
import { corpus, queries } from './corpus.js';
import { loadAverage } from './measure.js';
import { pgSearches, pgServer } from './pg-search.js';
import { docBatches } from './rows.js';

const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    chunks: { type: 'string', default: '1000000' },
    step: { type: 'string', default: '100000' },
  },
});
const url = values['pg-url'] ?? process.env.CHUNKD_BENCH_PG_URL;
if (!url) throw new Error('Name a real PostgreSQL with pgvector: --pg-url URL (or CHUNKD_BENCH_PG_URL).');
const N = Number(values.chunks);
const STEP = Number(values.step);
const BATCH = 5_000;
const log = (s: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${s}`);

const info = await corpus(N);
const { from, queries: qs } = await queries();
const plugin = (await discover()).get('handshake', 'pgvector') as unknown as { connect(c: unknown): Promise<HandshakeImpl> };
const client = new pg.Client({ connectionString: url });
await client.connect();
const prefix = `benchgrow${process.pid}_`;
const store = await plugin.connect({ url, table_prefix: prefix, pool_size: 4 });
const meta = { model: info.model, dimension: info.dimension };
const out: string[] = [];
const row = (what: string, value: string, note = '') => {
  out.push(`| ${what} | ${value} | ${note} | ${loadAverage()} |`);
  log(`${what}: ${value} ${note}`);
};

try {
  let written = 0;
  let total = 0;
  let step = { from: 0, rows: 0, ms: 0 };
  const stepRow = () => {
    row(
      `write through the plugin, chunks/s, rows ${step.from.toLocaleString('en')}–${written.toLocaleString('en')}`,
      (step.rows / (step.ms / 1000)).toFixed(0),
    );
    step = { from: written, rows: 0, ms: 0 };
  };
  for (const b of docBatches(info, N, BATCH)) {
    const t = performance.now();
    await store.writeMany!('bench', b.docs, meta);
    const ms = performance.now() - t;
    total += ms;
    written += b.rows;
    step = { from: step.from, rows: step.rows + b.rows, ms: step.ms + ms };
    if (written - step.from >= STEP) stepRow();
  }
  if (step.rows) stepRow();
  row(
    'write through the plugin, chunks/s, all rows',
    (written / (total / 1000)).toFixed(0),
    `${written.toLocaleString('en')} chunks in ${(total / 1000).toFixed(0)} s`,
  );
  for (const r of await pgSearches(client, store, 'bench', tables(prefix, 'bench').rows, qs, from)) row(r.what, r.value, r.note);
  console.log(`\n${await pgServer(client)}\n\n| measure | value | note | load average |\n|---|---:|---|---|\n${out.join('\n')}`);
} finally {
  await store.drop?.('bench').catch(() => {});
  await store.close();
  await client.query(`DROP TABLE IF EXISTS ${tables(prefix).meta}`).catch(() => {});
  await client.end();
}
