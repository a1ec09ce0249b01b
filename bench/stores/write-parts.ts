/**
 * `node --import tsx bench/stores/write-parts.ts [--chunks 100000] [--batch 5000]`: what a LanceDB
 * write costs, part by part, on the stores bench's real chunks. Each variant writes the same batches
 * into a fresh table and reports rows/s of the write calls alone (reading the corpus not counted):
 * the raw engine's `add` of plain objects and of Arrow tables, the commit kinds a per-document
 * replacement can use, and the upkeep (optimize) and index work that follow. For the analysis in
 * plugins/lancedb/README.md; not a suite of `npm run bench`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connect, Index, type Table } from '@lancedb/lancedb';
import { rowSchema, toArrow } from '../../plugins/lancedb/arrow.js';
import { documentIs } from '../../plugins/lancedb/sql.js';
import { corpus } from './corpus.js';
import { loadAverage } from './measure.js';
import { docBatches, lanceRecord, type DocBatch } from './rows.js';

const { values } = parseArgs({
  options: { chunks: { type: 'string', default: '100000' }, batch: { type: 'string', default: '5000' }, only: { type: 'string' } },
});
const N = Number(values.chunks);
const B = Number(values.batch);
const info = await corpus(N);
const load = () => loadAverage(2);

type Step = (table: Table, batch: DocBatch, i: number) => Promise<void>;
interface Variant {
  name: string;
  /** Made at the first batch (as the plugin does): the table, and any index made on it then. */
  first?: (table: Table) => Promise<void>;
  step: Step;
  /** After every 20th commit (the plugin's upkeep), timed apart and counted in the total. */
  every20?: (table: Table) => Promise<void>;
}

const inBatch = (b: DocBatch) => b.docs.map((d) => documentIs(d.document)).join(' OR ');
const docsIn = (b: DocBatch) => `document IN (${b.docs.map((d) => documentIs(d.document).slice('document = '.length)).join(', ')})`;
const arrow = (b: DocBatch) =>
  toArrow(
    rowSchema(info.dimension),
    b.docs.flatMap((d) => d.rows),
  );

const VARIANTS: Variant[] = [
  { name: 'raw add, plain objects', step: (t, b) => t.add(b.docs.flatMap((d) => d.rows.map(lanceRecord))).then(() => {}) },
  { name: 'raw add, Arrow built by column', step: (t, b) => t.add(arrow(b)).then(() => {}) },
  {
    name: "merge: upsert by id + delete the batch documents' other rows (the plugin before)",
    step: (t, b) =>
      t
        .mergeInsert('id')
        .whenMatchedUpdateAll()
        .whenNotMatchedInsertAll()
        .whenNotMatchedBySourceDelete({ where: inBatch(b) })
        .execute(b.docs.flatMap((d) => d.rows.map(lanceRecord)))
        .then(() => {}),
  },
  {
    name: 'merge: insert ids not present, no index',
    step: (t, b) =>
      t
        .mergeInsert('id')
        .whenNotMatchedInsertAll()
        .execute(arrow(b))
        .then(() => {}),
  },
  {
    name: 'merge: insert ids not present, btree on id',
    first: (t) => t.createIndex('id', { config: Index.btree() }),
    step: (t, b) =>
      t
        .mergeInsert('id')
        .whenNotMatchedInsertAll()
        .execute(arrow(b))
        .then(() => {}),
    every20: (t) => t.optimize().then(() => {}),
  },
  { name: 'delete the batch documents (OR of =), then add', step: async (t, b) => void (await t.delete(inBatch(b)), await t.add(arrow(b))) },
  { name: 'delete the batch documents (IN), then add', step: async (t, b) => void (await t.delete(docsIn(b)), await t.add(arrow(b))) },
  {
    name: 'look up the batch documents (IN, btree on document), then add',
    first: (t) => t.createIndex('document', { config: Index.btree() }),
    step: async (t, b) =>
      void ((await t.query().where(docsIn(b)).select(['id']).limit(1).toArray()).length ? await t.delete(docsIn(b)) : undefined, await t.add(arrow(b))),
    every20: (t) => t.optimize().then(() => {}),
  },
  {
    name: 'look up the batch documents (IN, no index), then add',
    step: async (t, b) =>
      void ((await t.query().where(docsIn(b)).select(['id']).limit(1).toArray()).length ? await t.delete(docsIn(b)) : undefined, await t.add(arrow(b))),
  },
  {
    name: 'raw add (Arrow) + FTS index at the first batch + optimize every 20 commits',
    first: (t) => t.createIndex('text', { config: Index.fts() }),
    step: (t, b) => t.add(arrow(b)).then(() => {}),
    every20: (t) => t.optimize().then(() => {}),
  },
  {
    name: 'raw add (Arrow) + optimize every 20 commits, no index',
    step: (t, b) => t.add(arrow(b)).then(() => {}),
    every20: (t) => t.optimize().then(() => {}),
  },
];

console.log(`${N.toLocaleString('en')} chunks (${info.meanChars} characters on average), batches of ~${B} rows; load average at start ${load()}\n`);
console.log('| variant | rows/s of the writes | of which upkeep (s) | total (s) | RSS after (MiB) | load |\n|---|---:|---:|---:|---:|---|');
for (const v of VARIANTS) {
  if (values.only && !v.name.includes(values.only)) continue;
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-parts-'));
  const db = await connect(dir);
  let table: Table | undefined;
  let ms = 0;
  let upkeepMs = 0;
  let rows = 0;
  let i = 0;
  for (const b of docBatches(info, N, B)) {
    const t0 = performance.now();
    if (!table) {
      table = await db.createTable('bench', arrow(b));
      await v.first?.(table);
    } else await v.step(table, b, i);
    ms += performance.now() - t0;
    rows += b.rows;
    if (++i % 20 === 0 && v.every20) {
      const t1 = performance.now();
      await v.every20(table);
      upkeepMs += performance.now() - t1;
    }
  }
  const count = await table!.countRows();
  if (count !== rows) throw new Error(`${v.name}: ${count} rows in the table, ${rows} written`);
  console.log(
    `| ${v.name} | ${Math.round(rows / ((ms + upkeepMs) / 1000)).toLocaleString('en')} | ${(upkeepMs / 1000).toFixed(1)} | ${((ms + upkeepMs) / 1000).toFixed(1)} | ${Math.round(process.memoryUsage().rss / 2 ** 20)} | ${load()} |`,
  );
  table!.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
