/**
 * A store as an evaluation's retriever (`store:NAME`): a candidate's rows (made and embedded in its
 * pool task, service/evaluation/eval-rows.ts) are written to a scratch collection of the named
 * connection through the Stores service, each question searches that collection's own index with
 * its vector, and the scratch collection is removed afterwards (its documents deleted, where the
 * handshake cannot drop a collection), whatever happened. So the figures
 * are those of the store's real index (approximate where the store's index is), next to the
 * exact-cosine ones of the same candidate.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError } from '../../kernel/errors.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import type { Stores } from '../stores/stores.js';
import { MAX_K } from '../../wire/stores.js';
import { documentChunks, rowCount, type EvalRows } from './eval-rows.js';
import { scratchCollection } from './scratch.js';
import type { EvalDocument, EvalRetriever } from './spec.js';

/** The connection a `store:NAME` retriever names, else undefined. */
export const storeOf = (retriever: EvalRetriever): string | undefined => (retriever.startsWith('store:') ? retriever.slice('store:'.length) : undefined);

/** What a store retriever uses of the Stores service. */
export type EvalStores = Pick<Stores, 'names' | 'handshakeOf' | 'capabilities' | 'checkWritable' | 'writeMany' | 'search' | 'dropCollection'>;

/** Rows written per store call: a call's chunk objects (vectors as plain arrays) stay a few megabytes. */
const WRITE_ROWS = 2000;

/**
 * Everything a store retriever could refuse, before any chunking: no such connection (422 listing
 * the server's), a store that cannot search by vector (422), a k above what one search returns
 * (422), a store this replica may not write (the write's own 409).
 */
export function checkStoreRetriever(stores: EvalStores | undefined, store: string, ks: readonly number[], at: (string | number)[] = ['body']): void {
  const names = stores?.names() ?? [];
  const where = [...at, 'retriever'];
  if (!stores || !names.includes(store)) {
    const msg = names.length
      ? `${unknownNameMessage('store', store, names)} This server's store connections: ${names.join(', ')} (GET /v1/stores); they are server settings (--stores FILE, CHUNKD_STORES).`
      : 'This server has no store connections (--stores FILE, CHUNKD_STORES): use the embeddings retriever.';
    throw new ChunkdError('VALIDATION', [{ loc: where, msg, type: 'unknown_store' }]);
  }
  if (!stores.capabilities(store).vector) {
    throw new ChunkdError('VALIDATION', [
      {
        loc: where,
        msg: `The store '${store}' (${stores.handshakeOf(store)}) searches by text only: a store retriever searches by the questions' vectors. Name a store whose handshake has vector search (GET /v1/plugins lists each handshake's capabilities).`,
        type: 'value_error',
      },
    ]);
  }
  const over = ks.findIndex((k) => k > MAX_K);
  if (over >= 0) {
    throw new ChunkdError('VALIDATION', [
      {
        loc: [...at, 'k', over],
        msg: `k is at most ${MAX_K} with a store retriever (got ${ks[over]}): one store search returns at most ${MAX_K} chunks.`,
        type: 'less_than_equal',
      },
    ]);
  }
  stores.checkWritable(store);
}

export { scratchCollection } from './scratch.js';

/**
 * Each question's best rows (their indices, best first, up to `k`) through the store's index: the
 * rows written to a scratch collection with `model` recorded, one search per question, then the
 * collection removed, also when a write or a search fails or `signal` aborts.
 */
export async function storeRankings(
  stores: EvalStores,
  store: string,
  model: string,
  rows: EvalRows,
  documents: readonly EvalDocument[],
  questionVectors: readonly number[][],
  k: number,
  signal?: AbortSignal,
): Promise<number[][]> {
  if (rowCount(rows) === 0) return questionVectors.map(() => []);
  const collection = scratchCollection();
  const written: string[] = [];
  let failed = false;
  try {
    let batch: { document: string; chunks: Chunk[] }[] = [];
    let size = 0;
    const flush = async () => {
      signal?.throwIfAborted();
      written.push(...batch.map((d) => d.document));
      await stores.writeMany(store, collection, batch, model);
      batch = [];
      size = 0;
    };
    for (const doc of documentChunks(rows, documents)) {
      batch.push(doc);
      size += doc.chunks.length;
      if (size >= WRITE_ROWS) await flush();
    }
    if (batch.length) await flush();
    const out: number[][] = [];
    for (const embedding of questionVectors) {
      signal?.throwIfAborted();
      const hits = await stores.search(store, { collection, embedding, k: Math.min(k, rowCount(rows)) });
      out.push(hits.map((h) => rowOf(h.metadata)));
    }
    return out;
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    await clean(stores, store, collection, written, failed);
  }
}

/** The row a hit is: the index the row was written with. */
function rowOf(metadata: Record<string, unknown>): number {
  const row = metadata.eval_row;
  if (typeof row !== 'number' || !Number.isInteger(row))
    throw new Error(`A store hit lacks the eval_row its chunk was written with (metadata: ${JSON.stringify(metadata).slice(0, 200)}).`);
  return row;
}

/**
 * Remove the scratch collection (or, where the handshake cannot drop one, the documents written to
 * it). Not under the request's signal: an aborted evaluation still leaves nothing behind. A failure
 * to clean up after a run that succeeded is the answer (the store then says it did not complete
 * the call); after a run that failed, the run's own error is.
 */
async function clean(stores: EvalStores, store: string, collection: string, documents: readonly string[], failed: boolean): Promise<void> {
  try {
    await stores.dropCollection(store, collection, documents);
  } catch (e) {
    if (!failed) throw e;
  }
}
