import Type from '#typebox';
import { defineHandshake } from '../../kernel/index.js';

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
  ef_search: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 400,
    description:
      "Candidates the HNSW index keeps while it searches (hnsw.ef_search; pgvector's own default is 40). Measured at 10^5 real chunks on PostgreSQL 15 (bench/results.md): recall@10 0.561 at 40, 0.833 at 400 (p50 4.6 ms).",
  }),
});

export default defineHandshake({
  name: 'pgvector',
  summary: 'PostgreSQL with pgvector: one table per collection, cosine vector search (HNSW index) and full-text search (tsvector).',
  extras: [
    { name: 'pgvector', packages: ['pgvector'], reason: 'Writes vectors in the form the pgvector extension reads (pg, the driver, is always installed).' },
  ],
  config: PgVectorConfig,
  capabilities: { vector: true, text: true },
  // pgvector's vector type (VECTOR_MAX_DIMENSIONS in sql.ts; not imported: the manifest loads no driver).
  maxDimensions: 16000,
  // A server every replica reaches by its URL.
  local: () => false,
  load: () => import('./impl.js'),
});
