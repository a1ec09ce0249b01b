import { availableParallelism } from 'node:os';
import { defineHandshake } from '../../kernel/index.js';
import { isLocal, LanceDbConfig } from './config.js';

export default defineHandshake({
  name: 'lancedb',
  summary: 'LanceDB, embedded: one table per collection under a directory; cosine vector search and full-text (BM25) search.',
  extras: [
    {
      name: 'lancedb',
      packages: ['@lancedb/lancedb', 'apache-arrow'],
      reason: 'The embedded LanceDB engine (a native module) and the Arrow tables it reads and writes.',
    },
  ],
  config: LanceDbConfig,
  capabilities: { vector: true, text: true },
  local: isLocal,
  // Chonkie's LanceDB handshake takes the collection as table_name: store_in("lancedb", table_name=...).
  collectionKey: 'table_name',
  // Embedded, it needs no server: the default store, under the data directory, when --stores is unset.
  embeddedDefault: (dir) => ({ path: dir }),
  load: () => {
    // LanceDB's CPU pool has one thread per core; with two, its full-text index build waits on
    // itself and never finishes (seen at ~50,000 chunks of real text). Two spare threads avoid it.
    process.env.LANCE_CPU_THREADS ??= String(Math.max(4, availableParallelism() + 2));
    // The engine itself is loaded when the connection is first used (./deferred.ts).
    return import('./deferred.js');
  },
});
