/**
 * What pg-write-at.ts and pg-grow.ts share (bench/stores.ts's pgvector section, its searches): the
 * pgvector plugin and a plain connection to one real PostgreSQL, the real-chunk corpus and the
 * benchmark's questions, a markdown table of measures, and the searches over a filled collection:
 * exact search (index scans off) for the reference top 10, the plugin's own search (its
 * `ef_search`), and the same SQL on one connection at that connection's ef_search (pgvector's
 * default 40 unless the URL sets it), each with p50/p99 and recall@10 against exact.
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

type Timed = Awaited<ReturnType<typeof timeSearches>>;

/** The three searches of a filled collection, each with its latency and ids; recall is against `exact`. */
export interface PgSearchFigures {
  count: number;
  /** Index scans off: the reference top 10. */
  exact: Timed;
  /** The plugin's own search, at its `ef_search`. */
  plugin: Timed;
  pluginEfSearch: number | undefined;
  /** The same SQL on one plain connection, at that connection's hnsw.ef_search. */
  engine: Timed;
  engineEfSearch: number;
}

/** One query's top 10 by the SQL the plugin runs, on a plain connection. */
export const engineSearch = (client: pg.Client, rows: string) => async (q: Query) =>
  (await client.query(vectorSearch(rows, []), [pgVector(q.vector), K])).rows.map((r) => r.id as string);

/** Exact, plugin and engine searches of `collection` (its rows table `rows`, quoted), in that order. */
export async function measurePgSearches(client: pg.Client, store: HandshakeImpl, collection: string, rows: string, qs: Query[]): Promise<PgSearchFigures> {
  const count = Number((await client.query(`SELECT count(*) FROM ${rows}`)).rows[0].count);
  await client.query('BEGIN');
  await client.query('SET LOCAL enable_indexscan = off');
  const exact = await timeSearches(qs, engineSearch(client, rows));
  await client.query('COMMIT');
  const plugin = await timeSearches(qs, async (q) => (await store.search(collection, { embedding: Array.from(q.vector), k: K })).map((h) => h.id));
  const engineEfSearch = Number((await client.query('SHOW hnsw.ef_search')).rows[0]['hnsw.ef_search']);
  const engine = await timeSearches(qs, engineSearch(client, rows));
  return { count, exact, plugin, pluginEfSearch: (PgVectorConfig.properties.ef_search as { default?: number }).default, engine, engineEfSearch };
}

/** The measured searches as table rows. */
function searchRows(f: PgSearchFigures, qs: Query[], from: string): SearchRow[] {
  return [
    {
      what: 'exact vector search p50 / p99, ms (index scans off)',
      value: `${f.exact.p50.toFixed(1)} / ${f.exact.p99.toFixed(1)}`,
      note: `${f.count.toLocaleString('en')} chunks; ${qs.length} queries (${from})`,
    },
    {
      what: `vector search through the plugin p50 / p99, ms (ef_search ${f.pluginEfSearch})`,
      value: `${f.plugin.p50.toFixed(2)} / ${f.plugin.p99.toFixed(2)}`,
      note: `recall@10 ${recallAt(f.plugin.found, f.exact.found).toFixed(3)}`,
    },
    {
      what: `the same SQL on one connection p50 / p99, ms (ef_search ${f.engineEfSearch}${f.engineEfSearch === 40 ? ", pgvector's default" : ''})`,
      value: `${f.engine.p50.toFixed(2)} / ${f.engine.p99.toFixed(2)}`,
      note: `recall@10 ${recallAt(f.engine.found, f.exact.found).toFixed(3)}`,
    },
  ];
}

/** The server's version line and pgvector's version, as the benches print them. */
export async function pgServer(client: pg.Client): Promise<string> {
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
      const rows = tables(prefix, 'bench').rows;
      for (const r of searchRows(await measurePgSearches(client, store, 'bench', rows, qs), qs, from)) row(r.what, r.value, r.note);
    },
    finish: async () => {
      console.log(`\n${await pgServer(client)}\n\n| measure | value | note | load average |\n|---|---:|---|---|\n${out.join('\n')}`);
      await close();
    },
    close,
  };
}
