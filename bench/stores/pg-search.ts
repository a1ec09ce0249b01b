/**
 * The pgvector handshake's vector search over a filled table on a real PostgreSQL, shared by
 * pg-write-at.ts and pg-grow.ts: exact search (index scans off) for the reference top 10, the
 * plugin's own search (its `ef_search`), and the same SQL on one connection at pgvector's default
 * ef_search, each with p50/p99 and recall@10 against exact.
 */
import type pg from 'pg';
import type { HandshakeImpl } from '../../kernel/handshake.js';
import { PgVectorConfig } from '../../plugins/pgvector/index.js';
import { vectorSearch } from '../../plugins/pgvector/sql.js';
import type { Query } from './corpus.js';
import { pgVector, recallAt, timeSearches } from './measure.js';

const K = 10;

/** A measured search: what it is, its figure, and its note (recall, or what the rows were). */
export interface SearchRow {
  what: string;
  value: string;
  note: string;
}

/** Exact, plugin and engine searches of `collection` (its rows table `rows`, quoted), in that order. */
export async function pgSearches(client: pg.Client, store: HandshakeImpl, collection: string, rows: string, qs: Query[], from: string): Promise<SearchRow[]> {
  const count = Number((await client.query(`SELECT count(*) FROM ${rows}`)).rows[0].count);
  const vec = (q: Query) => pgVector(q.vector);
  await client.query('BEGIN');
  await client.query('SET LOCAL enable_indexscan = off');
  const exact = await timeSearches(qs, async (q) => (await client.query(vectorSearch(rows, []), [vec(q), K])).rows.map((r) => r.id as string));
  await client.query('COMMIT');
  const efSearch = (PgVectorConfig.properties.ef_search as { default?: number }).default;
  const mine = await timeSearches(qs, async (q) => (await store.search(collection, { embedding: Array.from(q.vector), k: K })).map((h) => h.id));
  const engine = await timeSearches(qs, async (q) => (await client.query(vectorSearch(rows, []), [vec(q), K])).rows.map((r) => r.id as string));
  return [
    {
      what: 'exact vector search p50 / p99, ms (index scans off)',
      value: `${exact.p50.toFixed(1)} / ${exact.p99.toFixed(1)}`,
      note: `${count.toLocaleString('en')} chunks; ${qs.length} queries (${from})`,
    },
    {
      what: `vector search through the plugin p50 / p99, ms (ef_search ${efSearch})`,
      value: `${mine.p50.toFixed(2)} / ${mine.p99.toFixed(2)}`,
      note: `recall@10 ${recallAt(mine.found, exact.found).toFixed(3)}`,
    },
    {
      what: 'the same SQL on one connection p50 / p99, ms (pgvector default ef_search 40)',
      value: `${engine.p50.toFixed(2)} / ${engine.p99.toFixed(2)}`,
      note: `recall@10 ${recallAt(engine.found, exact.found).toFixed(3)}`,
    },
  ];
}

/** The server's version line and pgvector's version, as the scripts print them above their table. */
export async function pgServer(client: pg.Client): Promise<string> {
  const server = (await client.query("SELECT version() AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS ext")).rows[0] as {
    v: string;
    ext: string;
  };
  return `${server.v.split(' on ')[0]}, pgvector ${server.ext}`;
}
