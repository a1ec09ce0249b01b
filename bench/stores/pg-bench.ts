/**
 * What pg-write-at.ts and pg-grow.ts share: the pgvector plugin and a plain connection to one real
 * PostgreSQL, the real-chunk corpus and the benchmark's questions, a markdown table of measures,
 * and the searches over a filled collection: exact search (index scans off) for the reference top
 * 10, the plugin's own search (its `ef_search`), and the same SQL on one connection at pgvector's
 * default ef_search, each with p50/p99 and recall@10 against exact.
 */
import pg from 'pg';
import { discover } from '../../kernel/discovery.js';
import type { HandshakeImpl } from '../../kernel/handshake.js';
import { PgVectorConfig } from '../../plugins/pgvector/index.js';
import { tables, vectorSearch } from '../../plugins/pgvector/sql.js';
import { corpus, queries, type CorpusInfo, type Query } from './corpus.js';
import { loadAverage, pgVector, recallAt, timeSearches } from './measure.js';

const K = 10;

/** A measured search: what it is, its figure, and its note (recall, or what the rows were). */
interface SearchRow {
  what: string;
  value: string;
  note: string;
}

/** Exact, plugin and engine searches of `collection` (its rows table `rows`, quoted), in that order. */
async function pgSearches(client: pg.Client, store: HandshakeImpl, collection: string, rows: string, qs: Query[], from: string): Promise<SearchRow[]> {
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
async function pgServer(client: pg.Client): Promise<string> {
  const server = (await client.query("SELECT version() AS v, (SELECT extversion FROM pg_extension WHERE extname = 'vector') AS ext")).rows[0] as {
    v: string;
    ext: string;
  };
  return `${server.v.split(' on ')[0]}, pgvector ${server.ext}`;
}

/** A time-stamped progress line on stderr. */
export const log = (s: string) => console.error(`${new Date().toISOString().slice(11, 19)} ${s}`);

/** One bench's corpus, plugin store (collection `bench`) and plain connection, and its table of measures; the questions are searched by `search`. */
export interface PgBench {
  info: CorpusInfo;
  client: pg.Client;
  store: HandshakeImpl;
  meta: { model: string; dimension: number };
  prefix: string;
  /** A measure: one line of the table (with the load average), logged as it is taken. */
  row(what: string, value: string, note?: string): void;
  /** The searches of the filled collection, as rows. */
  search(): Promise<void>;
  /** Print the table under the server's version, then drop the collection and close both connections. */
  finish(): Promise<void>;
  /** Drop the collection and close both connections (after a failure: nothing printed). */
  close(): Promise<void>;
}

/** A bench on the PostgreSQL at `url`, its tables named `name` + pid, over a corpus of at least `chunks` real chunks (made, or read from its cache). */
export async function openPgBench(url: string | undefined, name: string, chunks: number): Promise<PgBench> {
  if (!url) throw new Error('Name a real PostgreSQL with pgvector: --pg-url URL (or CHUNKD_BENCH_PG_URL).');
  const info = await corpus(chunks);
  const { from, queries: qs } = await queries();
  const plugin = (await discover()).get('handshake', 'pgvector') as unknown as { connect(c: unknown): Promise<HandshakeImpl> };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const prefix = `${name}${process.pid}_`;
  const store = await plugin.connect({ url, table_prefix: prefix, pool_size: 4 });
  const out: string[] = [];
  const row = (what: string, value: string, note = '') => {
    out.push(`| ${what} | ${value} | ${note} | ${loadAverage()} |`);
    log(`${what}: ${value} ${note}`);
  };
  const close = async () => {
    await store.drop?.('bench').catch(() => {});
    await store.close();
    await client.query(`DROP TABLE IF EXISTS ${tables(prefix).meta}`).catch(() => {});
    await client.end();
  };
  return {
    info,
    client,
    store,
    meta: { model: info.model, dimension: info.dimension },
    prefix,
    row,
    search: async () => {
      for (const r of await pgSearches(client, store, 'bench', tables(prefix, 'bench').rows, qs, from)) row(r.what, r.value, r.note);
    },
    finish: async () => {
      console.log(`\n${await pgServer(client)}\n\n| measure | value | note | load average |\n|---|---:|---|---|\n${out.join('\n')}`);
      await close();
    },
    close,
  };
}
