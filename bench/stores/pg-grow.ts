/**
 * `CHUNKD_QUALITY_DATA=… node --import tsx bench/stores/pg-grow.ts --pg-url URL [--chunks 1000000] [--step 100000]`:
 * the pgvector handshake's collection grown from empty to `chunks` real chunks through the plugin
 * alone, as a job writes (`writeMany`, batches of ~5,000 rows of whole documents), every index
 * (HNSW with the plugin's settings, GIN, document) kept by the server row by row from the first
 * write: the write rate of each `step` of rows, then the plugin's vector search over the whole
 * collection with recall@10 against exact search (bench/stores/pg-bench.ts). What a user's
 * collection is after its writes, where pg-write-at.ts builds the index in bulk under the first
 * rows and times the raw engine beside the plugin. Prints a markdown table. Not a suite of
 * `npm run bench` (over an hour at 10^6 here).
 */
import { parseArgs } from 'node:util';
import { openPgBench } from './pg-bench.js';
import { docBatches } from './rows.js';

const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string' },
    chunks: { type: 'string', default: '1000000' },
    step: { type: 'string', default: '100000' },
  },
});
const N = Number(values.chunks);
const STEP = Number(values.step);
const BATCH = 5_000;
const { info, store, meta, row, search, finish, close } = await openPgBench(values['pg-url'] ?? process.env.CHUNKD_BENCH_PG_URL, 'benchgrow', N);

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
  await search();
  await finish();
} catch (e) {
  await close();
  throw e;
}
