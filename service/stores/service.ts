/**
 * The stores as the surfaces use them: the `Stores` service (connections, built once at start)
 * under the services key STORES. Declared here by what the surfaces call, so they stand on the
 * contract agreed for issue 31 and not on one implementation.
 */
import type { Chunk } from '../../kernel/chunk.js';

export const STORES = 'stores';

export interface CollectionInfo {
  name: string;
  count: number;
  model: string | null;
  dimension: number | null;
}

export interface StoreListing {
  name: string;
  handshake: string;
  /** Under this replica's data directory: not shared with other replicas. */
  local: boolean;
  collections: CollectionInfo[];
  /** Set when the store did not answer. */
  error?: string;
}

export interface StoreHit {
  id: string;
  document: string;
  text: string;
  start_index: number;
  end_index: number;
  token_count: number;
  metadata: Record<string, unknown>;
  score: number;
}

export interface StoreQuery {
  collection: string;
  query?: string;
  embedding?: number[];
  k: number;
  filter?: { document?: string };
}

export interface StoresService {
  list(): Promise<StoreListing[]>;
  names(): string[];
  /** The first connection of that handshake. */
  byHandshake(handshake: string): string | undefined;
  /** The handshake of a connection. */
  handshakeOf(store: string): string | undefined;
  /** Replace `document`'s chunks (each with its embedding) in the collection; a 409 naming both models when it holds another's vectors. */
  write(store: string, collection: string, document: string, chunks: Chunk[], model: string): Promise<void>;
  /** Many documents in one batch (each replaced); optional: a caller may loop over write(). */
  writeMany?(store: string, collection: string, docs: { document: string; chunks: Chunk[] }[], model: string): Promise<void>;
  search(store: string, query: StoreQuery): Promise<StoreHit[]>;
  deleteDocument(store: string, collection: string, document: string): Promise<number>;
  close(): Promise<void>;
}
