import { createHash } from 'node:crypto';
import { escapeIdentifier, escapeLiteral } from 'pg';
import { acceptedValues, BM25, type StoreFilter } from '../../kernel/index.js';

/** PostgreSQL cuts an identifier at NAMEDATALEN - 1 = 63 bytes, silently: two long names would meet in one table. */
export const MAX_IDENTIFIER_BYTES = 63;
/** Hex digits of the hash a long name ends with (64 bits). */
const HASH_DIGITS = 16;

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, HASH_DIGITS);

/**
 * `name` as is when PostgreSQL keeps it whole; else its first bytes, a `.` and a hash of the whole
 * name, 63 bytes in all. A prefix and a collection name are ASCII and never hold a `.`: a cut name
 * is never a whole one, and two cut names meet only if their hashes do.
 */
export function identifier(name: string): string {
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES) return name;
  return `${name.slice(0, MAX_IDENTIFIER_BYTES - HASH_DIGITS - 1)}.${hashOf(name)}`;
}

/** The table of a collection (unquoted): `<prefix><collection>`, cut and hashed when it would pass 63 bytes. */
export const tableName = (prefix: string, collection: string): string => identifier(`${prefix}${collection}`);

/** The quoted table of a collection and of the meta rows: collection names never start with `_`, so they cannot meet `<prefix>_meta`. */
export const tables = (prefix: string, collection?: string) => ({
  meta: escapeIdentifier(`${prefix}_meta`),
  rows: collection === undefined ? '' : escapeIdentifier(tableName(prefix, collection)),
});

/**
 * An index of a table: `<table>.<what>`, whose `.` no table name ends a whole name with (a table
 * name never holds one, a cut one ends in its hash), so an index never takes a collection's table
 * name (`<table>_document` would be the table of the collection `<collection>_document`).
 */
export const indexName = (table: string, what: string): string => {
  const name = `${table}.${what}`;
  return Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES
    ? name
    : `${table.slice(0, MAX_IDENTIFIER_BYTES - HASH_DIGITS - what.length - 2)}.${hashOf(table)}.${what}`;
};

/** Above this many dimensions pgvector builds no HNSW index on `vector`: such collections are searched exactly. */
export const HNSW_MAX_DIMENSIONS = 2000;

/** pgvector's `vector` type holds at most this many dimensions: a longer vector cannot be stored. */
export const VECTOR_MAX_DIMENSIONS = 16000;

export const createMeta = (meta: string) =>
  `CREATE TABLE IF NOT EXISTS ${meta} (name text PRIMARY KEY, table_name text NOT NULL, model text NOT NULL, dimension integer NOT NULL)`;

/** How a collection's HNSW index is built (pgvector's m and ef_construction): fixed when its table is made. */
export interface HnswBuild {
  m: number;
  efConstruction: number;
}

/** The statements making a collection's table (`table` unquoted) and its indexes: run once, when the table does not exist. */
export function createRows(table: string, dimension: number, hnsw: HnswBuild): string[] {
  const rows = escapeIdentifier(table);
  const index = (what: string) => escapeIdentifier(indexName(table, what));
  return [
    `CREATE TABLE ${rows} (id text PRIMARY KEY, document text NOT NULL, text text NOT NULL, start_index integer NOT NULL, end_index integer NOT NULL, token_count integer NOT NULL, metadata jsonb NOT NULL, embedding vector(${dimension}) NOT NULL, index_text text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(index_text, text))) STORED)`,
    `CREATE INDEX ${index('document')} ON ${rows} (document)`,
    `CREATE INDEX ${index('tsv')} ON ${rows} USING gin (tsv)`,
    ...(dimension <= HNSW_MAX_DIMENSIONS
      ? [
          `CREATE INDEX ${index('embedding')} ON ${rows} USING hnsw (embedding vector_cosine_ops) WITH (m = ${hnsw.m}, ef_construction = ${hnsw.efConstruction})`,
        ]
      : []),
  ];
}
/** Upsert many rows in one statement: columns as arrays, unnested. */
export const upsert = (rows: string) =>
  `INSERT INTO ${rows} (id, document, text, start_index, end_index, token_count, metadata, embedding, index_text)
   SELECT u.id, u.document, u.text, u.s, u.e, u.tc, u.md::jsonb, u.emb::vector, u.it
   FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[]) AS u(id, document, text, s, e, tc, md, emb, it)
   ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document, text = EXCLUDED.text, start_index = EXCLUDED.start_index, end_index = EXCLUDED.end_index, token_count = EXCLUDED.token_count, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding, index_text = EXCLUDED.index_text`;

/**
 * The statement deleting a document's rows ($1) that the current transaction did not write: run
 * after the document's upserts, it leaves exactly the rows just written. A row inserted or updated
 * by a transaction carries that transaction's id as its `xmin`, and chunkd's writes run in one
 * transaction with no savepoint. It sends no list of the rows kept: 100,000 ids as an array
 * parameter held the event loop 100-130 ms while the driver encoded them.
 */
export const deleteUnwritten = (rows: string) => `DELETE FROM ${rows} WHERE document = $1 AND xmin <> pg_current_xact_id()::xid`;

const COLUMNS = 'id, document, text, start_index, end_index, token_count, metadata';

/**
 * A search's filter as SQL conditions on bound parameters, numbered from `from`: the document, and
 * each metadata field equal to one of its values (compared as JSON: "3" is not 3). Keys and values
 * are parameters, never SQL text.
 */
export function filterSql(filter: StoreFilter | undefined, from: number): { conditions: string[]; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${from + params.length - 1}`;
  };
  if (filter?.document !== undefined) conditions.push(`document = ${param(filter.document)}`);
  for (const [key, condition] of Object.entries(filter?.metadata ?? {}))
    conditions.push(`metadata -> ${param(key)}::text = ANY(${param(acceptedValues(condition).map((v) => JSON.stringify(v)))}::jsonb[])`);
  return { conditions, params };
}

export const vectorSearch = (rows: string, conditions: string[]) =>
  `SELECT ${COLUMNS}, 1 - (embedding <=> $1::vector) AS score FROM ${rows} ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY embedding <=> $1::vector LIMIT $2`;

/** BM25's parameters, as `chunkd eval`'s bm25 has them. */
const { k1: K1, b: B } = BM25;
/** Rows a text search scores, about: those holding the query's rarest words (textSearch). */
const TEXT_CANDIDATES = 1000;

/**
 * Text search ranked by BM25 (k1 1.2, b 0.75, Lucene's idf) over the `tsvector` column and its GIN
 * index. The query's words are its lexemes under the `simple` configuration, as the rows have them;
 * each is quoted, so no word is read as an operator, and a query with no word matches nothing.
 *
 * - A word's document frequency comes from the column's statistics (ANALYZE's most common
 *   lexemes, each a share of the table's rows) when it is one of those, and is otherwise counted
 *   through the index, up to 2 × TEXT_CANDIDATES rows (such words are rare).
 * - The rows scored are those holding the query's rarest words, taken rarest first while their
 *   frequencies add up to TEXT_CANDIDATES (the rarest alone when it passes that): a row holding
 *   only common words scores too little to be among the first hits. With a filter, every row of
 *   the filter's holding any of the words (a filter's rows may hold none of the rarest). Each row
 *   is scored on every word of the query.
 * - A word's count in a row is read back from `ts_rank` of that word alone with unit weights:
 *   the sum over its positions of 1/i², divided by π²/6, which gives the count again. A row's
 *   length is its number of distinct words (`length(tsv)`), against their mean over 1,000 rows.
 *
 * Measured by bench/stores/pg-text.ts on 10^5 real chunks: 51 ms a query, and 0.88 of the top 10
 * of `chunkd eval`'s bm25; ranked by ts_rank over every row holding any query word (as before):
 * 519 ms and 0.58. Not a held-out figure: TEXT_CANDIDATES was chosen on the same questions.
 */
export const textSearch = (rows: string, conditions: string[]) => {
  const table = escapeLiteral(rows);
  return `WITH terms AS (
  SELECT l AS lexeme, ('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || '''')::tsquery AS q
  FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS l
), stats AS MATERIALIZED (
  SELECT greatest(CASE WHEN c.reltuples >= 0 THEN c.reltuples ELSE (SELECT count(*) FROM ${rows}) END, 1)::float8 AS n,
    (SELECT avg(length(tsv)) FROM (SELECT tsv FROM ${rows} LIMIT 1000) s)::float8 AS avgdl
  FROM pg_class c WHERE c.oid = to_regclass(${table})
), common AS MATERIALIZED (
  SELECT e.lexeme, e.freq FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
    JOIN pg_stats st ON st.schemaname = ns.nspname AND st.tablename = c.relname AND st.attname = 'tsv',
    unnest(st.most_common_elems::text::text[], st.most_common_elem_freqs) AS e(lexeme, freq)
  WHERE c.oid = to_regclass(${table}) AND e.lexeme IS NOT NULL
), counted AS MATERIALIZED (
  SELECT t.lexeme, t.q, coalesce(m.freq * s.n, (SELECT count(*) FROM (SELECT 1 FROM ${rows} WHERE tsv @@ t.q LIMIT ${2 * TEXT_CANDIDATES}) x))::float8 AS df
  FROM terms t CROSS JOIN stats s LEFT JOIN common m ON m.lexeme = t.lexeme
), weighted AS MATERIALIZED (
  SELECT c.q, ln(1 + (s.n - c.df + 0.5) / (c.df + 0.5)) AS idf, sum(c.df) OVER (ORDER BY c.df, c.lexeme) AS running
  FROM counted c, stats s WHERE c.df > 0
), chosen AS (
  SELECT string_agg(q::text, ' | ')::tsquery AS q FROM weighted ${conditions.length ? '' : `WHERE running <= ${TEXT_CANDIDATES} OR running = (SELECT min(running) FROM weighted)`}
)
SELECT ${COLUMNS}, score FROM (
  SELECT ${COLUMNS},
    (SELECT sum(w.idf * f.tf * ${K1 + 1} / (f.tf + ${K1} * (${1 - B} + ${B} * length(r.tsv) / s.avgdl)))
      FROM weighted w, LATERAL (SELECT round(1 / (1.64493406685 * (1 - ts_rank('{1,1,1,1}', r.tsv, w.q)::float8)) - 0.5) AS tf) f
      WHERE r.tsv @@ w.q) AS score
  FROM ${rows} r, chosen, stats s WHERE r.tsv @@ chosen.q ${conditions.map((c) => `AND ${c}`).join(' ')}
) x ORDER BY score DESC, id LIMIT $2`;
};

/** A page of a collection's documents: each with its name (its rows' metadata.name) and chunk count, after $1 (or from the first when null). */
export const documentsPage = (rows: string) =>
  `SELECT document, min(metadata ->> 'name') AS name, count(*)::int AS chunks FROM ${rows} WHERE $1::text IS NULL OR document > $1 GROUP BY document ORDER BY document LIMIT $2`;
