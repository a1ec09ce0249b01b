import pg, { escapeIdentifier } from 'pg';
import type { Static } from '#typebox';
import { setImmediate as tick } from 'node:timers/promises';
import {
  ChunkdError,
  configError,
  type CollectionInfo,
  type DocumentInfo,
  type HandshakeImpl,
  type StoreHit,
  type StoreQuery,
  type StoreRow,
  type WriteMeta,
} from '../../kernel/index.js';
import type { PgVectorConfig } from './index.js';
import {
  createMeta,
  createRows,
  deleteUnwritten,
  documentsPage,
  filterSql,
  tableName,
  tables,
  textSearch,
  upsert,
  vectorSearch,
  type HnswBuild,
} from './sql.js';

const UNDEFINED_TABLE = '42P01';
/**
 * Rows per upsert statement. A document's rows go in statements of this many, in its one
 * transaction, a turn of the event loop between two: the driver turns every value into the
 * statement's text on the calling thread, which for one statement of 100,000 rows held every other
 * request for seconds (measured: /health 6.0 s). Each statement is also held to the query timeout.
 * At 2,000 rows a statement's text took ~40 ms (measured in a CPU profile of a 100,000-chunk write);
 * 500 rows keep it near 10 ms, and PostgreSQL's time per row (the HNSW insert) is the same.
 */
const ROWS_PER_STATEMENT = 500;

/** A vector as pgvector's text form, `[x,y,…]`, made in one string (the numbers print as JSON would: they are finite, checked before any write or search). */
const vectorText = (v: ArrayLike<number>): string => `[${Array.prototype.join.call(v, ',')}]`;

export async function create(config: Static<typeof PgVectorConfig>): Promise<HandshakeImpl> {
  if (config.hnsw_ef_construction < 2 * config.hnsw_m)
    throw configError(
      `hnsw_ef_construction (${config.hnsw_ef_construction}) must be at least twice hnsw_m (${config.hnsw_m}), as pgvector requires: raise it to ${2 * config.hnsw_m} or more.`,
    );
  // Timeouts: a database that accepts connections and never answers fails each call in bounded time, never holds it.
  const pool = new pg.Pool({
    ...startupOptions(config.url, config.ef_search),
    max: config.pool_size,
    connectionTimeoutMillis: config.connect_timeout_ms,
    statement_timeout: config.query_timeout_ms,
    query_timeout: config.query_timeout_ms + 1_000,
  });
  // An idle connection the server drops must not crash the process: the next query fails and is reported by its caller.
  pool.on('error', () => {});
  return new PgVectorStore(pool, config.table_prefix, { m: config.hnsw_m, efConstruction: config.hnsw_ef_construction });
}

/**
 * The pool's connection string and the options each connection starts with. Each connection's HNSW
 * searches keep ef_search candidates: a parameter of the connection's start (the extension's setting
 * is valid before it is loaded), not a query beside the first one on a new connection. A URL's own
 * `options` would replace the pool's in node-postgres (and with them ef_search: recall@10 0.576
 * instead of ~0.96 at 10^6 chunks, bench/results.md), so they are taken off the URL and follow the
 * plugin's: a setting the URL names itself, ef_search included, still wins.
 */
function startupOptions(url: string, efSearch: number): { connectionString: string; options: string } {
  const own = `-c hnsw.ef_search=${efSearch}`;
  // The query alone is read and rewritten (as node-postgres reads it: URLSearchParams), so every form of URL it takes
  // keeps its host part as written, a socket's `user@/db?host=/dir` included.
  const query = url.indexOf('?');
  if (query < 0) return { connectionString: url, options: own };
  const hash = url.indexOf('#', query);
  const end = hash < 0 ? url.length : hash;
  const params = new URLSearchParams(url.slice(query + 1, end));
  const theirs = params.get('options');
  if (theirs === null) return { connectionString: url, options: own };
  params.delete('options');
  const rest = params.toString();
  return { connectionString: `${url.slice(0, query)}${rest ? `?${rest}` : ''}${url.slice(end)}`, options: `${own} ${theirs}` };
}

const isUndefinedTable = (e: unknown) => (e as { code?: string })?.code === UNDEFINED_TABLE;

function toHit(row: Record<string, unknown>): StoreHit {
  const document = row.document as string;
  return {
    id: row.id as string,
    document,
    text: row.text as string,
    start_index: row.start_index as number,
    end_index: row.end_index as number,
    token_count: row.token_count as number,
    metadata: { ...(row.metadata as Record<string, unknown>), document },
    score: Number(row.score),
  };
}

class PgVectorStore implements HandshakeImpl {
  private extension?: Promise<void>;

  constructor(
    private readonly pool: pg.Pool,
    private readonly prefix: string,
    private readonly hnsw: HnswBuild,
  ) {}

  /** The extension, once per connection: a database without it (and a role that cannot create it) says what to run. */
  private ensureExtension(client: pg.PoolClient): Promise<void> {
    this.extension ??= client.query('CREATE EXTENSION IF NOT EXISTS vector').then(
      () => undefined,
      async (e: unknown) => {
        this.extension = undefined;
        const found = await client.query("SELECT 1 FROM pg_extension WHERE extname = 'vector'").catch(() => ({ rowCount: 0 }));
        if (!found.rowCount)
          throw new Error(
            `The pgvector extension is not installed in this database and cannot be created by this role (${(e as Error).message}): run CREATE EXTENSION vector as its owner.`,
          );
      },
    );
    return this.extension;
  }

  async collections(): Promise<CollectionInfo[]> {
    const { meta } = tables(this.prefix);
    let rows: { name: string; model: string; dimension: number }[];
    try {
      rows = (await this.pool.query(`SELECT name, model, dimension FROM ${meta} ORDER BY name`)).rows;
    } catch (e) {
      if (isUndefinedTable(e)) return [];
      throw e;
    }
    return Promise.all(
      rows.map(async (r) => {
        const count = await this.pool.query(`SELECT count(*)::int AS n FROM ${tables(this.prefix, r.name).rows}`).then(
          (res) => res.rows[0].n as number,
          (e) => (isUndefinedTable(e) ? 0 : Promise.reject(e)),
        );
        return { name: r.name, count, model: r.model, dimension: r.dimension };
      }),
    );
  }

  write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void> {
    return this.writeMany(collection, [{ document, rows }], meta);
  }

  /**
   * One transaction per batch: the collection's tables made if missing (under an advisory lock,
   * since concurrent CREATE ... IF NOT EXISTS can still collide), its model recorded once, each
   * document's rows upserted by id and then its other rows deleted (those this transaction did not write).
   */
  async writeMany(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void> {
    const t = tables(this.prefix, collection);
    await this.transaction(
      async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`chunkd-store:${t.rows}`]);
        await client.query(createMeta(t.meta));
        const table = tableName(this.prefix, collection);
        await client.query(`INSERT INTO ${t.meta} (name, table_name, model, dimension) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`, [
          collection,
          table,
          meta.model,
          meta.dimension,
        ]);
        await this.ensureTable(client, t.meta, collection, table, meta.dimension);
        for (const { document, rows } of docs) {
          for (let at = 0; at < rows.length; at += ROWS_PER_STATEMENT) {
            if (at) await tick();
            const piece = rows.slice(at, at + ROWS_PER_STATEMENT);
            await client.query(upsert(t.rows), [
              piece.map((r) => r.id),
              piece.map((r) => r.document),
              piece.map((r) => r.text),
              piece.map((r) => r.start_index),
              piece.map((r) => r.end_index),
              piece.map((r) => r.token_count),
              piece.map((r) => JSON.stringify(r.metadata)),
              piece.map((r) => vectorText(r.embedding)),
              // null where it is the text itself: the tsvector then reads text
              piece.map((r) => (r.index_text === undefined || r.index_text === r.text ? null : r.index_text)),
            ]);
          }
          await client.query(deleteUnwritten(t.rows), [document]);
        }
      },
      (client) => this.ensureExtension(client),
    );
  }

  /**
   * The collection's own table, made with its indexes when it does not exist yet. A table another
   * collection's meta row names (a hash shared by two cut names), or a name some other relation
   * holds, is a 409: the rows never go to another collection's table.
   */
  private async ensureTable(client: pg.PoolClient, meta: string, collection: string, table: string, dimension: number): Promise<void> {
    const other = await client.query(`SELECT name FROM ${meta} WHERE table_name = $1 AND name <> $2 LIMIT 1`, [table, collection]);
    if (other.rowCount)
      throw new ChunkdError(
        'CONFLICT',
        `The collection '${collection}' would be kept in the table of the collection '${other.rows[0].name}' (${table}): write to a collection of another name.`,
      );
    const found = await client.query('SELECT relkind FROM pg_class WHERE oid = to_regclass($1)', [escapeIdentifier(table)]);
    if (!found.rowCount) {
      for (const sql of createRows(table, dimension, this.hnsw)) await client.query(sql);
      return;
    }
    if (found.rows[0].relkind !== 'r' && found.rows[0].relkind !== 'p')
      throw new ChunkdError(
        'CONFLICT',
        `The name of the collection '${collection}''s table (${table}) is taken by another object of the database (an index of an earlier chunkd version): write to a collection of another name.`,
      );
  }

  async delete(collection: string, document: string): Promise<number> {
    try {
      return (await this.pool.query(`DELETE FROM ${tables(this.prefix, collection).rows} WHERE document = $1`, [document])).rowCount ?? 0;
    } catch (e) {
      if (isUndefinedTable(e)) return 0;
      throw e;
    }
  }

  /** The table and its meta row in one transaction: a reader sees the collection whole or not at all. */
  async drop(collection: string): Promise<void> {
    const t = tables(this.prefix, collection);
    await this.transaction(async (client) => {
      await client.query(`DROP TABLE IF EXISTS ${t.rows}`);
      // A statement that fails aborts the transaction: the meta table is looked up, not assumed.
      const { rows } = await client.query('SELECT to_regclass($1) IS NOT NULL AS found', [t.meta]);
      if (rows[0].found) await client.query(`DELETE FROM ${t.meta} WHERE name = $1`, [collection]);
    });
  }

  /** `work` in one transaction on one connection (after `before`, outside it), rolled back if it throws. */
  private async transaction(work: (client: pg.PoolClient) => Promise<void>, before?: (client: pg.PoolClient) => Promise<void>): Promise<void> {
    const client = await this.pool.connect();
    try {
      await before?.(client);
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      client.release();
    }
  }

  async search(collection: string, q: StoreQuery): Promise<StoreHit[]> {
    const { rows } = tables(this.prefix, collection);
    const filter = filterSql(q.filter, 3);
    const params: unknown[] = [q.embedding ? vectorText(q.embedding) : (q.text ?? ''), q.k, ...filter.params];
    try {
      const res = await this.pool.query(q.embedding ? vectorSearch(rows, filter.conditions) : textSearch(rows, filter.conditions), params);
      return res.rows.map(toHit);
    } catch (e) {
      if (isUndefinedTable(e)) return [];
      throw e;
    }
  }

  async documents(collection: string, page: { after?: string; limit: number }): Promise<DocumentInfo[]> {
    try {
      return (await this.pool.query(documentsPage(tables(this.prefix, collection).rows), [page.after ?? null, page.limit])).rows as DocumentInfo[];
    } catch (e) {
      if (isUndefinedTable(e)) return [];
      throw e;
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
