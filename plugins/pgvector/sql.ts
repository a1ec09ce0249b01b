import { escapeIdentifier } from 'pg';
import { acceptedValues, type StoreFilter } from '../../kernel/index.js';

/** The quoted table of a collection and of the meta rows: collection names never start with `_`, so they cannot meet `<prefix>_meta`. */
export const tables = (prefix: string, collection?: string) => ({
  meta: escapeIdentifier(`${prefix}_meta`),
  rows: collection === undefined ? '' : escapeIdentifier(`${prefix}${collection}`),
});

/** Above this many dimensions pgvector builds no HNSW index on `vector`: such collections are searched exactly. */
export const HNSW_MAX_DIMENSIONS = 2000;

export const createMeta = (meta: string) =>
  `CREATE TABLE IF NOT EXISTS ${meta} (name text PRIMARY KEY, table_name text NOT NULL, model text NOT NULL, dimension integer NOT NULL)`;

export function createRows(rows: string, dimension: number): string[] {
  const index = (suffix: string) => escapeIdentifier(`${rows.slice(1, -1).replaceAll('""', '"')}_${suffix}`);
  return [
    `CREATE TABLE IF NOT EXISTS ${rows} (id text PRIMARY KEY, document text NOT NULL, text text NOT NULL, start_index integer NOT NULL, end_index integer NOT NULL, token_count integer NOT NULL, metadata jsonb NOT NULL, embedding vector(${dimension}) NOT NULL, index_text text, tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', coalesce(index_text, text))) STORED)`,
    // a table made before index_text existed gets the column; its tsv still reads text
    `ALTER TABLE ${rows} ADD COLUMN IF NOT EXISTS index_text text`,
    `CREATE INDEX IF NOT EXISTS ${index('document')} ON ${rows} (document)`,
    `CREATE INDEX IF NOT EXISTS ${index('tsv')} ON ${rows} USING gin (tsv)`,
    ...(dimension <= HNSW_MAX_DIMENSIONS ? [`CREATE INDEX IF NOT EXISTS ${index('embedding')} ON ${rows} USING hnsw (embedding vector_cosine_ops)`] : []),
  ];
}

/** Upsert many rows in one statement: columns as arrays, unnested. */
export const upsert = (rows: string) =>
  `INSERT INTO ${rows} (id, document, text, start_index, end_index, token_count, metadata, embedding, index_text)
   SELECT u.id, u.document, u.text, u.s, u.e, u.tc, u.md::jsonb, u.emb::vector, u.it
   FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::int[], $6::int[], $7::text[], $8::text[], $9::text[]) AS u(id, document, text, s, e, tc, md, emb, it)
   ON CONFLICT (id) DO UPDATE SET document = EXCLUDED.document, text = EXCLUDED.text, start_index = EXCLUDED.start_index, end_index = EXCLUDED.end_index, token_count = EXCLUDED.token_count, metadata = EXCLUDED.metadata, embedding = EXCLUDED.embedding, index_text = EXCLUDED.index_text`;

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

/**
 * The query's words (its lexemes under the `simple` configuration, as the rows' tsvector has them)
 * joined by OR: a chunk matching any of them is a hit, ranked by ts_rank (how often and how many of
 * them it holds; no inverse document frequency, unlike BM25). plainto_tsquery would AND them, and a
 * question's every word is seldom in one chunk. Each lexeme is quoted (quotes and backslashes
 * doubled), so no word is read as an operator; a query with no word matches nothing.
 */
const anyWord = `(SELECT string_agg('''' || replace(replace(l, '\\', '\\\\'), '''', '''''') || '''', ' | ')::tsquery AS q FROM unnest(tsvector_to_array(to_tsvector('simple', $1))) AS l) w`;

export const textSearch = (rows: string, conditions: string[]) =>
  `SELECT ${COLUMNS}, ts_rank(tsv, w.q) AS score FROM ${rows}, ${anyWord} WHERE tsv @@ w.q ${conditions.map((c) => `AND ${c}`).join(' ')} ORDER BY score DESC, id LIMIT $2`;

/** A page of a collection's documents: each with its name (its rows' metadata.name) and chunk count, after $1 (or from the first when null). */
export const documentsPage = (rows: string) =>
  `SELECT document, min(metadata ->> 'name') AS name, count(*)::int AS chunks FROM ${rows} WHERE $1::text IS NULL OR document > $1 GROUP BY document ORDER BY document LIMIT $2`;
