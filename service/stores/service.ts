/**
 * The stores as the surfaces use them: the `Stores` service (connections, built once at start)
 * under services.stores. The surfaces name it by what they call (StoresService), so a test
 * may stand in a small fake; the shapes are the ones declared by the kernel's handshake contract and
 * the Stores class, not declared again here.
 */
import type { Stores } from './stores.js';

export type { CollectionInfo, StoreHit } from '../../kernel/handshake.js';
export type { SearchRequest as StoreQuery, StoreListing, DocumentMeta, DocumentPage } from './stores.js';

export type StoresService = Pick<
  Stores,
  'list' | 'names' | 'byHandshake' | 'handshakeOf' | 'write' | 'search' | 'searchWithMode' | 'deleteDocument' | 'close'
> &
  Partial<Pick<Stores, 'writeMany' | 'model' | 'deleteCollection' | 'documents' | 'checkWritable'>>;
