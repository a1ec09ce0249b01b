/**
 * `node --import tsx bench/stores/pg-text.ts --pg-url URL [--size 100000] [--queries 100]`: the
 * pgvector handshake's text search (plugins/pgvector/sql.ts, BM25 over the tsvector column and its
 * GIN index) on real chunks (bench/stores/corpus.ts), beside PostgreSQL's own ranking of the same
 * rows (ts_rank over every row holding any of the query's words, as the handshake ranked before) and
 * `chunkd eval`'s bm25 (service/evaluation/bm25.ts) over the same texts. For each: p50 and p99 of a
 * query, and the share of bm25's top 10 it finds. The queries are the benchmark's questions
 * (CHUNKD_QUALITY_DATA). The rows go into a table made as the handshake makes one, less its vector
 * index (a text search never reads it), then ANALYZE, as autovacuum would. Never part of `npm test`.
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { indexName, tableName, tables, createRows, textSearch } from '../../plugins/pgvector/sql.js';
import { Bm25Index } from '../../service/evaluation/bm25.js';
import { corpus, queries } from './corpus.js';
import { docBatches, pgRawInsert } from './rows.js';
import { recallAt, timeSearches } from './measure.js';
import { num } from '../table.js';

const { values } = parseArgs({
  options: {
    'pg-url': { type: 'string', default: process.env.CHUNKD_BENCH_PG_URL },
    size: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '100' },
  },
});
if (!values['pg-url']) throw new Error('Name a PostgreSQL server with the vector extension: --pg-url URL (or CHUNKD_BENCH_PG_URL).');
const size = Number(values.size);
const K = 10;
const log = (l: string) => process.stderr.write(`${l}\n`);

const info = await corpus(size);
const qs = (await queries()).queries.slice(0, Number(values.queries));
const client = new pg.Client({ connectionString: values['pg-url'] });
await client.connect();
const prefix = `benchtext${process.pid}_`;
const table = tableName(prefix, 'bench');
const rows = tables(prefix, 'bench').rows;
try {
  for (const sql of createRows(table, info.dimension, { m: 16, efConstruction: 32 })) await client.query(sql);
  await client.query(`DROP INDEX ${pg.escapeIdentifier(indexName(table, 'embedding'))}`);
  const ids: string[] = [];
  const texts: string[] = [];
  for (const b of docBatches(info, size, 5000)) {
    const all = b.docs.flatMap((d) => d.rows);
    for (const r of all) {
      ids.push(r.id);
      texts.push(r.text);
    }
    await pgRawInsert(client, rows, all);
  }
  await client.query(`ANALYZE ${rows}`);
  log(`${ids.length} rows written and analysed; ${qs.length} queries`);
  const bm25 = new Bm25Index(texts);
  const reference = qs.map((q) => bm25.top(q.text, K).map((i) => ids[i]!));
  const tsRank = `SELECT id, ts_rank(tsv, w.q) AS score FROM ${rows}, (SELECT string_agg('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery AS q FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS l) w WHERE tsv @@ w.q ORDER BY score DESC, id LIMIT $2`;
  const ours = await timeSearches(qs, async (q) => (await client.query(textSearch(rows, []), [q.text, K])).rows.map((r) => r.id as string));
  const theirs = await timeSearches(qs, async (q) => (await client.query(tsRank, [q.text, K])).rows.map((r) => r.id as string));
  const server = (await client.query('SELECT version() AS v')).rows[0].v as string;
  console.log(`| text search, ${ids.length.toLocaleString('en')} chunks | p50 ms | p99 ms | share of bm25's top ${K} |`);
  console.log('|---|---:|---:|---:|');
  console.log(`| chunkd (BM25 over the GIN index) | ${num(ours.p50)} | ${num(ours.p99)} | ${recallAt(ours.found, reference).toFixed(3)} |`);
  console.log(`| ts_rank over every matching row | ${num(theirs.p50)} | ${num(theirs.p99)} | ${recallAt(theirs.found, reference).toFixed(3)} |`);
  console.log(`\n${server.split(' on ')[0]}; ${qs.length} queries; the first 20 run twice to warm caches.`);
} finally {
  await client.query(`DROP TABLE IF EXISTS ${rows}`).catch(() => {});
  await client.end();
}
