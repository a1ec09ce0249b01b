import { availableParallelism } from 'node:os';
import Type from '#typebox';
import { defineHandshake } from '../../kernel/index.js';

export const LanceDbConfig = Type.Object({
  path: Type.String({
    minLength: 1,
    description: 'Directory of the database (created on first write), or an object-store URI (s3://, gs://, az://) that every replica reaches.',
  }),
  vector_index_rows: Type.Integer({
    minimum: 0,
    default: 50_000,
    description:
      'Rows past which a collection gets an approximate vector index (IVF-PQ), built when its writes settle; below it, and at 0, vector search is exact.',
  }),
  settle_ms: Type.Integer({
    minimum: 0,
    default: 2000,
    description:
      "Quiet time after a collection's last write before its upkeep runs: compaction, new rows folded into the full-text and vector indexes, the vector index built past vector_index_rows.",
  }),
});

/** A path with a scheme is object storage, reachable from any replica; anything else is this machine's disk. */
const OBJECT_STORE = /^[a-z][a-z0-9+.-]*:\/\//i;

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
  local: ({ path }) => !OBJECT_STORE.test(path),
  // Chonkie's LanceDB handshake takes the collection as table_name: store_in("lancedb", table_name=...).
  collectionKey: 'table_name',
  // Embedded, it needs no server: the default store, under the data directory, when --stores is unset.
  embeddedDefault: (dir) => ({ path: dir }),
  load: () => {
    // LanceDB's CPU pool has one thread per core; with two, its full-text index build waits on
    // itself and never finishes (seen at ~50,000 chunks of real text). Two spare threads avoid it.
    process.env.LANCE_CPU_THREADS ??= String(Math.max(4, availableParallelism() + 2));
    return import('./impl.js');
  },
});
