import type { Chunk } from '../../kernel/chunk.js';
import type { StoresService } from '../../service/stores/service.js';

/**
 * A StoresService of store 's' whose writes all go through `writeMany` (a `write` is a test's bug):
 * what a batch of held writes is flushed to. Searches answer nothing.
 */
export function writingStores(writeMany: (collection: string, docs: { document: string; chunks: Chunk[] }[]) => Promise<void>): StoresService {
  return {
    names: () => ['s'],
    byHandshake: () => 's',
    handshakeOf: () => 'memory',
    list: async () => [],
    search: async () => [],
    searchWithMode: async () => ({ mode: 'vector' as const, hits: [] }),
    deleteDocument: async () => 0,
    close: async () => {},
    write: async () => {
      throw new Error('writeMany is used when the stores have it');
    },
    writeMany: async (_s, collection, docs) => writeMany(collection, docs as { document: string; chunks: Chunk[] }[]),
  };
}
