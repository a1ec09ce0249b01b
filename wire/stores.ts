import Type, { type Static } from '#typebox';
import { CollectionName } from '../kernel/handshake.js';
import { SEARCH_MODES, type SearchMode as SearchModeName } from '../kernel/search-mode.js';
import { SearchFilter } from './metadata.js';

/** A connection's name: what a request, a pipeline step or a CLI flag names. */
export const CONNECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Most results one search may ask for. */
export const MAX_K = 1000;

/** Wire shapes of the store routes (server/routes/stores.ts). */

/** A search mode (kernel/search-mode.ts), the one schema every field of a mode is made from. */
const SearchMode = (options: Record<string, unknown> = {}) =>
  Type.Unsafe<SearchModeName>(
    Type.Union(
      SEARCH_MODES.map((m) => Type.Literal(m)),
      options,
    ),
  );

/** How a search runs; the modes a store serves come from its handshake's capabilities. */
export const SearchModeField = SearchMode({
  description:
    "How to search: text (the store's full-text index: LanceDB FTS, PostgreSQL tsvector), vector (the query's embedding with the collection's model), hybrid (both, fused by the collection's model's rule, kernel/fusion.ts). A mode the store's handshake cannot serve is a 422 naming those it can (GET /v1/plugins lists each handshake's capabilities). Absent: the collection's default, by its model: text for the built-in chunkd/glove-sif-100d (measured best, held out), hybrid for any other model (not measured); vector for an embedding. The answer's X-Chunkd-Search-Mode header names the mode that ran.",
});

/** The response header that names the mode a search ran. */
export const SEARCH_MODE_HEADER = 'X-Chunkd-Search-Mode';

export const CollectionInfo = Type.Object({
  name: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Chunks (rows) it holds.' }),
  model: Type.Union([Type.String(), Type.Null()], {
    description: 'The embedding model its vectors came from; writes and searches with another model are refused (409).',
  }),
  dimension: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Numbers per vector.' }),
  default_mode: Type.Union([SearchMode(), Type.Null()], {
    description:
      'The mode a search without `mode` runs, by its model: text for the built-in model (measured best, held out), hybrid for others (not measured); null: the store serves none it can use.',
  }),
});

export const StoreInfo = Type.Object({
  name: Type.String({ description: 'The connection’s name: what a write step and a search name.' }),
  handshake: Type.String({ description: 'The handshake plugin it connects with (GET /v1/plugins lists them).' }),
  local: Type.Boolean({ description: "true: the store lives under this replica's data directory, and other replicas do not see it." }),
  modes: Type.Array(SearchMode(), { description: 'The search modes its handshake serves.' }),
  collections: Type.Array(CollectionInfo),
  error: Type.Optional(Type.String({ description: 'Set when the store did not answer: why (never its URL or a secret); its collections are then empty.' })),
});

/** A store as GET /v1/stores lists it (service/stores/stores.ts list). */
export type StoreInfo = Static<typeof StoreInfo>;

export const StoreList = Type.Array(StoreInfo, {
  examples: [
    [
      {
        name: 'default',
        handshake: 'lancedb',
        local: true,
        modes: ['vector', 'text', 'hybrid'],
        collections: [{ name: 'docs', count: 42, model: 'chunkd/glove-sif-100d', dimension: 100, default_mode: 'text' }],
      },
    ],
  ],
});

export const StoreSearch = Type.Object(
  {
    collection: CollectionName,
    query: Type.Optional(Type.String({ minLength: 1, maxLength: 100_000, description: "A text, embedded with the collection's model." })),
    embedding: Type.Optional(
      Type.Array(Type.Number(), { minItems: 1, maxItems: 65_536, description: "A vector of the collection's dimension, instead of query." }),
    ),
    k: Type.Integer({ minimum: 1, maximum: MAX_K, default: 5, description: `How many chunks to answer (1–${MAX_K}).` }),
    filter: Type.Optional(SearchFilter),
    mode: Type.Optional(SearchModeField),
  },
  {
    additionalProperties: true,
    examples: [
      { collection: 'docs', query: 'How do I install it?', k: 5 },
      { collection: 'docs', query: 'install', k: 5, mode: 'text' },
    ],
  },
);

export const StoreHit = Type.Object(
  {
    id: Type.String(),
    text: Type.String(),
    start_index: Type.Integer({ minimum: 0, description: "Offsets into the document's text, in the unit the write step's pipeline ran with." }),
    end_index: Type.Integer({ minimum: 0 }),
    token_count: Type.Integer({ minimum: 0 }),
    metadata: Type.Record(Type.String(), Type.Unknown(), {
      description:
        "The chunk's metadata: `document` (the id it was written under), `name` (the uploaded file's name, or the path under the ingested folder), the document's own metadata, and what its chef and chunker found.",
    }),
    score: Type.Number({
      description: "Higher is closer. Its scale is the mode's: cosine similarity (vector), the full-text index's relevance (text), the fused score (hybrid).",
    }),
  },
  { additionalProperties: true },
);

export const SearchResult = Type.Array(StoreHit, { description: 'Best first.' });

/** Most documents one page of a collection's documents listing holds. */
export const MAX_DOCUMENTS_PAGE = 1000;

export const DocumentInfo = Type.Object({
  document: Type.String({ description: 'The id its chunks were written under.' }),
  name: Type.Union([Type.String(), Type.Null()], {
    description: "Its chunks' metadata.name: the uploaded file's name, or the path under the ingested folder.",
  }),
  chunks: Type.Integer({ minimum: 0, description: 'Chunks (rows) it has in the collection.' }),
});

export const DocumentPage = Type.Object(
  {
    documents: Type.Array(DocumentInfo, { description: 'By id, ascending.' }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last.' }),
  },
  { examples: [{ documents: [{ document: 'notes/a.md', name: 'notes/a.md', chunks: 3 }], next_cursor: null }] },
);
