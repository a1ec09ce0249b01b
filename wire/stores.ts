import Type from 'typebox';
import { CollectionName, MAX_DOCUMENT_ID_LENGTH } from '../kernel/handshake.js';

/** A connection's name: what a request, a pipeline step or a CLI flag names. */
export const CONNECTION_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Most results one search may ask for. */
export const MAX_K = 1000;

/** Wire shapes of the store routes (server/routes/stores.ts). */

export const CollectionInfo = Type.Object({
  name: Type.String(),
  count: Type.Integer({ minimum: 0, description: 'Chunks (rows) it holds.' }),
  model: Type.Union([Type.String(), Type.Null()], {
    description: 'The embedding model its vectors came from; writes and searches with another model are refused (409).',
  }),
  dimension: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'Numbers per vector.' }),
});

export const StoreInfo = Type.Object({
  name: Type.String({ description: 'The connection’s name: what a write step and a search name.' }),
  handshake: Type.String({ description: 'The handshake plugin it connects with (GET /v1/plugins lists them).' }),
  local: Type.Boolean({ description: "true: the store lives under this replica's data directory, and other replicas do not see it." }),
  collections: Type.Array(CollectionInfo),
  error: Type.Optional(Type.String({ description: 'Set when the store did not answer: why (never its URL or a secret); its collections are then empty.' })),
});

export const StoreList = Type.Array(StoreInfo, {
  examples: [
    [{ name: 'default', handshake: 'lancedb', local: true, collections: [{ name: 'docs', count: 42, model: 'chunkd/glove-sif-100d', dimension: 100 }] }],
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
    filter: Type.Optional(
      Type.Object(
        { document: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_DOCUMENT_ID_LENGTH, description: 'Only chunks of this document.' })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: true, examples: [{ collection: 'docs', query: 'How do I install it?', k: 5 }] },
);

export const StoreHit = Type.Object(
  {
    id: Type.String(),
    text: Type.String(),
    start_index: Type.Integer({ minimum: 0, description: "Offsets into the document's text, in the unit the write step's pipeline ran with." }),
    end_index: Type.Integer({ minimum: 0 }),
    token_count: Type.Integer({ minimum: 0 }),
    metadata: Type.Record(Type.String(), Type.Unknown(), { description: "The chunk's metadata, with `document`: the id it was written under." }),
    score: Type.Number({ description: 'Similarity to the query: higher is closer.' }),
  },
  { additionalProperties: true },
);

export const SearchResult = Type.Array(StoreHit, { description: 'Best first.' });
