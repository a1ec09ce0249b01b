import Type from '#typebox';
import { defineHandshake } from '../../kernel/index.js';

/**
 * ef_construction of a new collection's HNSW index and the search's ef_search, chosen together by
 * recall@10 against exact search on 10^5 real chunks, the rows inserted into the index as the
 * plugin writes them (bench/stores/pg-index-grid.ts; bench/results.md): 200 and 800 reach 0.964
 * (p50 9.9 ms) for writes 1.6× as long as pgvector's default 64 (which reached 0.833 at 400);
 * 256 would reach 0.969 at 600 for writes 2.0× as long.
 */
export const HNSW_EF_CONSTRUCTION = 200;
const HNSW_MEASURED =
  'Measured at 10^5 real chunks on PostgreSQL 15 (bench/results.md): recall@10 with ef_search 400 was 0.833 at 64, 0.908 at 128, 0.937–0.945 at 200; the writes took 121, 175 and 191 s.';

export const PgVectorConfig = Type.Object({
  url: Type.String({
    minLength: 1,
    secret: true,
    description: 'PostgreSQL URL of a database with the pgvector extension: postgres://user:password@host:5432/db.',
  }),
  table_prefix: Type.String({
    pattern: '^[a-z][a-z0-9_]{0,15}$',
    default: 'chunkd_',
    description: "Prefix of the tables: one per collection (prefix + collection name), and prefix + _meta for each collection's model and dimension.",
  }),
  pool_size: Type.Integer({ minimum: 1, maximum: 100, default: 4, description: 'Most connections this server opens to the database.' }),
  connect_timeout_ms: Type.Integer({
    minimum: 1,
    maximum: 600_000,
    default: 5_000,
    description: 'Longest wait for a connection to open: a database that does not answer fails the call instead of holding it.',
  }),
  query_timeout_ms: Type.Integer({
    minimum: 1,
    maximum: 3_600_000,
    default: 60_000,
    description: 'Longest one statement may run (statement_timeout), and a reply may take to arrive: past it the call fails.',
  }),
  hnsw_m: Type.Integer({
    minimum: 2,
    maximum: 100,
    default: 16,
    description: "Links per node of a new collection's HNSW index (pgvector's m); fixed when the collection's table is made.",
  }),
  hnsw_ef_construction: Type.Integer({
    minimum: 4,
    maximum: 1000,
    default: HNSW_EF_CONSTRUCTION,
    description: `Candidates kept while a new collection's HNSW index is built (pgvector's ef_construction, default 64; at least twice hnsw_m); fixed when the table is made. ${HNSW_MEASURED}`,
  }),
  ef_search: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 800,
    description:
      "Candidates the HNSW index keeps while it searches (hnsw.ef_search; pgvector's own default is 40). Measured at 10^5 real chunks on PostgreSQL 15, hnsw_ef_construction 200 (bench/results.md): recall@10 0.766 at 40, 0.937–0.945 at 400, 0.964 at 800 (p50 9.9 ms). At 10^6, an index kept row by row as the plugin writes: 0.915–0.930 at 800 (p50 11–18 ms), 0.939 at 1000; built over the same rows: 0.957–0.981 at 800 (README: a large collection's recall).",
  }),
});

export default defineHandshake({
  name: 'pgvector',
  summary: 'PostgreSQL with pgvector: one table per collection, cosine vector search (HNSW index) and full-text search (tsvector).',
  // pg, the driver, is always installed; the vectors' text form is the plugin's own (impl.ts vectorText).
  extras: [],
  config: PgVectorConfig,
  capabilities: { vector: true, text: true },
  // pgvector's vector type (VECTOR_MAX_DIMENSIONS in sql.ts; not imported: the manifest loads no driver).
  maxDimensions: 16000,
  // A server every replica reaches by its URL.
  local: () => false,
  load: () => import('./impl.js'),
});
