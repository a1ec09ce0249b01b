import Type, { type TObject, type TSchema } from '#typebox';
import type { Chunk } from './chunk.js';
import { sourceKey, chunkId } from './ids.js';
import type { StoreFilter } from './store-filter.js';

/**
 * The handshake contract: a vector store chunkd writes chunks to and searches. A handshake's config
 * is a CONNECTION (a path, a URL), set by the operator (--stores), never by a request.
 */

/**
 * A collection's name: what a request or a pipeline step may name. Handshakes may use it as a table
 * name as is (it cannot start with `_`, so a store's own tables, named `_chunkd…`, never collide).
 * A handshake maps each name to exactly one table or index, whatever its length: where the engine
 * would cut a name (PostgreSQL at 63 bytes, with the table prefix), it ends the name in a hash
 * instead (plugins/pgvector/sql.ts). LanceDB (a directory of up to 255 bytes) and Chroma (3–512
 * characters, plugins/chroma/names.ts) keep every name whole.
 */
export const CollectionName = Type.String({
  pattern: '^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$',
  description: 'The collection (a table in the store): letters, digits, _ and -, at most 63, starting with a letter or digit.',
  examples: ['docs'],
});

/**
 * The longest document id, in UTF-16 code units, everywhere one is taken: a pipeline run's
 * `document`, a job document's `id`, a search's `filter.document`, a delete's path, an
 * evaluation's document id. One limit, so an id one surface accepts every other takes.
 */
export const MAX_DOCUMENT_ID_LENGTH = 1024;

/** One chunk as stored: its id is storeChunkId(document, chunk), so a re-write replaces rather than adds. */
export interface StoreRow {
  id: string;
  document: string;
  text: string;
  start_index: number;
  end_index: number;
  token_count: number;
  metadata: Record<string, unknown>;
  embedding: number[] | Float32Array;
  /**
   * What the store's full-text index reads (kernel/index-text.ts indexText: the chunk's context, then
   * its text), the text its embedding was made from too; `text` stays the span. A handshake that
   * keeps no such column indexes `text`.
   */
  index_text?: string;
}

/**
 * A chunk on its way to a store: its embedding a plain array (a request's chunks) or a view into
 * the Float32Array a worker moved over (a write step's rows, kernel/engine/steps/write.ts), never copied.
 */
export type ChunkToStore = Omit<Chunk, 'embedding'> & { embedding?: number[] | Float32Array };

/**
 * Chunks to store made (or checked and made rows) between two turns of the event loop, wherever a
 * large write is prepared on the calling thread (service/stores/stores.ts, evaluation's scratch
 * writes): a 100,000-chunk document never holds up other requests. 250 a turn took ~10 ms in a CPU
 * profile, where 1,000 took 25-38 ms and 2,000 (evaluation's before) 50-100 ms.
 */
export const STORE_ROWS_PER_TURN = 250;

/** A collection as its store records it: the model its vectors came from and their dimension. */
export interface CollectionInfo {
  name: string;
  count: number;
  model: string | null;
  dimension: number | null;
}

/** A search result, best first; `metadata.document` names the document it came from. */
export interface StoreHit extends Omit<StoreRow, 'embedding' | 'id' | 'index_text'> {
  id: string;
  score: number;
}

export interface WriteMeta {
  model: string;
  dimension: number;
}

export interface StoreQuery {
  embedding?: number[];
  text?: string;
  k: number;
  /** Only chunks that hold every condition (kernel/store-filter.ts): push it down, binding or escaping each value. */
  filter?: StoreFilter;
}

/** A document of a collection as its documents listing has it: its id, its name (metadata.name of its chunks) and how many chunks it has. */
export interface DocumentInfo {
  document: string;
  name: string | null;
  chunks: number;
}

export interface HandshakeImpl {
  collections(): Promise<CollectionInfo[]>;
  /** Replace every row of `document` in `collection` by `rows` (idempotent; creates the collection, recording model and dimension on first write). */
  write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void>;
  /** Many documents in one batch (each replaced), for jobs. */
  writeMany?(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void>;
  /** Rows removed. */
  delete(collection: string, document: string): Promise<number>;
  /** Remove the collection itself, its rows and its recorded model (a scratch collection, e.g. an evaluation's); a missing one is no error. Optional: without it, a caller deletes the documents. */
  drop?(collection: string): Promise<void>;
  /**
   * Fold every write made so far into the collection's indexes now, as the store does on its own once
   * writes settle (an evaluation searches right after writing, and is measured as users search a
   * settled collection). Optional: a store whose indexes are current at each commit needs none.
   */
  settle?(collection: string): Promise<void>;
  /** Documents of the collection by id, ascending, those after `after` (a page's last id), at most `limit`. Optional: without it the listing is refused. */
  documents?(collection: string, page: { after?: string; limit: number }): Promise<DocumentInfo[]>;
  /** Best first; a `text` query needs the text capability, an `embedding` one the vector capability. */
  search(collection: string, q: StoreQuery): Promise<StoreHit[]>;
  /**
   * Load now what the connection's first use would load (an engine it loads lazily). A server calls
   * it once it is listening, so that no request holds the event loop while a native module loads.
   * Optional: a connection that loads nothing later needs none.
   */
  warm?(): Promise<void>;
  close(): Promise<void>;
}

/** What a handshake can search by. */
export interface Capabilities {
  vector: boolean;
  text: boolean;
}

/**
 * The id of a stored chunk: the same document and chunk always give the same id (so writing a
 * document twice leaves one copy), another document's identical chunk another id. The hash is the
 * one chunk ids use (kernel/ids.ts), keyed by the document id and the chunk's text, mixed with its span.
 */
export function storeChunkId(document: string, chunk: Pick<Chunk, 'text' | 'start_index' | 'end_index'>): string {
  return chunkId(sourceKey(`${document.length}:${document}\u0000${chunk.text}`), chunk.start_index, chunk.end_index);
}

/** The connection fields a handshake's schema marks `secret: true`: never listed, logged or put in an error. */
export function secretFields(config: TObject): string[] {
  return Object.entries(config.properties as Record<string, TSchema & { secret?: boolean }>)
    .filter(([, field]) => field.secret === true)
    .map(([key]) => key);
}
