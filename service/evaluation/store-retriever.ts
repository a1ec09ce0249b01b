/**
 * A store as an evaluation's retriever (`store:NAME`, `store:NAME:MODE`): a candidate's rows (made
 * and embedded in its pool task, service/evaluation/eval-rows.ts) are written to a scratch
 * collection of the named connection through the Stores service, each question searches that
 * collection's own index in a search mode (the one named, else the collection's default for its
 * model), and the scratch collection is removed afterwards (its documents deleted, where the
 * handshake cannot drop a collection), whatever happened. So the figures are those of the store's
 * real index (approximate where the store's index is), next to those of the exact retriever of the
 * same mode (EXACT_OF_MODE) on the same candidate. */
import type { ChunkToStore } from '../../kernel/handshake.js';
import { ChunkdError } from '../../kernel/errors.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import type { Stores } from '../stores/stores.js';
import { MAX_K } from '../../wire/stores.js';
import { documentChunks, rowCount, type EvalRows } from './eval-rows.js';
import { scratchCollection } from './scratch.js';
import type { EvalDocument, EvalRetriever } from './spec.js';
import type { RetrieverName } from './score.js';
import { defaultModeFor, isSearchMode, SEARCH_MODES, type SearchMode } from '../../kernel/search-mode.js';

/** The connection a `store:NAME` or `store:NAME:MODE` retriever names, else undefined. */
export const storeOf = (retriever: EvalRetriever): string | undefined =>
  retriever.startsWith('store:') ? retriever.slice('store:'.length).split(':')[0] : undefined;

/** The search mode a `store:NAME:MODE` retriever names (unchecked: checkStoreRetriever checks it), else undefined: the collection's default. */
export const storeModeOf = (retriever: EvalRetriever): string | undefined => {
  const parts = retriever.startsWith('store:') ? retriever.split(':') : [];
  return parts.length > 2 ? parts.slice(2).join(':') : undefined;
};

/**
 * The mode a store retriever runs: the one named, else the default of a collection of `model` in
 * that store (kernel/search-mode.ts defaultModeFor), as a search of it without a mode would.
 */
export function storeMode(stores: Pick<EvalStores, 'modes'>, store: string, mode: string | undefined, model: string): SearchMode {
  const modes = stores.modes(store);
  if (isSearchMode(mode)) return mode;
  return defaultModeFor(model, modes) ?? modes[0]!;
}

/** The exact retriever of the figures beside a store mode's: the same search over the same chunks, without the store. */
export const EXACT_OF_MODE: Readonly<Record<SearchMode, RetrieverName>> = { text: 'bm25', vector: 'embeddings', hybrid: 'hybrid' };

/** What a store retriever uses of the Stores service. */
export type EvalStores = Pick<Stores, 'names' | 'handshakeOf' | 'modes' | 'checkWritable' | 'writeMany' | 'settle' | 'search' | 'dropCollection'>;

/** Rows written per store call: a call's chunk objects (vectors as plain arrays) stay a few megabytes. */
const WRITE_ROWS = 2000;

/**
 * Everything a store retriever could refuse, before any chunking: no such connection (422 listing
 * the server's), a mode that is none or that the store cannot serve (422 naming those it can), a k above what one search returns
 * (422), a store this replica may not write (the write's own 409).
 */
export function checkStoreRetriever(
  stores: EvalStores | undefined,
  store: string,
  ks: readonly number[],
  at: (string | number)[] = ['body'],
  mode?: string,
): void {
  const names = stores?.names() ?? [];
  const where = [...at, 'retriever'];
  if (!stores || !names.includes(store)) {
    const msg = names.length
      ? `${unknownNameMessage('store', store, names)} This server's store connections: ${names.join(', ')} (GET /v1/stores); they are server settings (--stores FILE, CHUNKD_STORES).`
      : 'This server has no store connections (--stores FILE, CHUNKD_STORES): use the embeddings retriever.';
    throw new ChunkdError('VALIDATION', [{ loc: where, msg, type: 'unknown_store' }]);
  }
  if (mode !== undefined) {
    const modes = stores.modes(store);
    if (!isSearchMode(mode) || !modes.includes(mode)) {
      const what = isSearchMode(mode)
        ? `The store '${store}' (${stores.handshakeOf(store)}) cannot search in the ${mode} mode`
        : `'${mode}' is no search mode (${SEARCH_MODES.join(', ')})`;
      throw new ChunkdError('VALIDATION', [
        {
          loc: where,
          msg: `${what}: the store '${store}' serves ${modes.join(', ')} (store:${store}:${modes[0]}; store:${store} runs the collection's default mode).`,
          type: 'value_error',
        },
      ]);
    }
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
 * rows written to a scratch collection with `model` recorded, one search per question in `mode`, then the
 * collection removed, also when a write or a search fails or `signal` aborts.
 */
export async function storeRankings(
  stores: EvalStores,
  store: string,
  model: string,
  rows: EvalRows,
  documents: readonly EvalDocument[],
  questions: readonly string[],
  questionVectors: readonly number[][],
  k: number,
  mode: SearchMode,
  signal?: AbortSignal,
): Promise<number[][]> {
  if (rowCount(rows) === 0) return questionVectors.map(() => []);
  const collection = scratchCollection();
  const written: string[] = [];
  let failed = false;
  try {
    let batch: { document: string; chunks: ChunkToStore[] }[] = [];
    let size = 0;
    const flush = async () => {
      signal?.throwIfAborted();
      written.push(...batch.map((d) => d.document));
      await stores.writeMany(store, collection, batch, model);
      batch = [];
      size = 0;
    };
    for await (const doc of documentChunks(rows, documents)) {
      batch.push(doc);
      size += doc.chunks.length;
      if (size >= WRITE_ROWS) await flush();
    }
    if (batch.length) await flush();
    // Searched as a user searches a collection whose writes have settled: every row in its indexes
    // (LanceDB's full-text index ranks rows appended after its first write poorly until then).
    signal?.throwIfAborted();
    await stores.settle(store, collection);
    const out: number[][] = [];
    for (const [i, embedding] of questionVectors.entries()) {
      signal?.throwIfAborted();
      // the question and its vector (embedded once, as the candidates' chunks were): the store runs `mode` on them
      const query = mode === 'vector' ? {} : { query: questions[i]! };
      const hits = await stores.search(store, { collection, ...query, embedding, k: Math.min(k, rowCount(rows)), mode });
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
