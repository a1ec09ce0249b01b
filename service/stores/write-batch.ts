/**
 * A job's writes, held until its batch has run and then written together (one call per
 * collection when the handshake takes many documents at once), so a batch's documents are
 * recorded done only after the store confirmed them. Each flush tries the store once: a store
 * that cannot take the writes (down, hanging, failing) is a StoreWait for the job's consumer,
 * which schedules the batch again later (service/jobs/store-wait.ts) and runs other jobs
 * meanwhile: no consumer is held by a store.
 */
import type { ChunkToStore } from '../../kernel/handshake.js';
import { isChunkdError, type ChunkdError } from '../../kernel/errors.js';
import type { DocumentMeta, StoresService } from './service.js';
import { isStoreCallError } from './stores.js';

interface Pending {
  store: string;
  collection: string;
  model: string;
  docs: Map<string, { index: number; chunks: readonly ChunkToStore[]; meta?: DocumentMeta }>;
}

/** A write step's store did not take a batch's writes: the batch is to be tried again later, or given up. */
export class StoreWait extends Error {
  constructor(
    readonly store: string,
    /** Why it could not be reached; undefined when it answered with an error of its own. */
    readonly unreachable: string | undefined,
    /** Its own message (redacted, one line): the same one again and again means it will never take these writes. */
    readonly reason: string,
    override readonly cause: unknown,
  ) {
    super(`the store '${store}' did not take the writes: ${unreachable ?? reason}`);
  }
}

/** A store's failure as the wait of a job's batch: a 503 of another kind (a stopping server) is taken as the store out of reach. */
export function asStoreWait(e: unknown, store: string): StoreWait {
  if (isStoreCallError(e)) return new StoreWait(e.store, e.unreachable, e.reason, e);
  const message = (e as Error)?.message ?? String(e);
  return new StoreWait(store, message, message, e);
}

export class WriteBatch {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly stores: StoresService) {}

  /** The stores as a recipe's write step sees them: every write is held here (keyed by document: a later write of one document replaces an earlier one). */
  get service(): StoresService {
    const { stores } = this;
    return {
      list: () => stores.list(),
      names: () => stores.names(),
      byHandshake: (h) => stores.byHandshake(h),
      handshakeOf: (s) => stores.handshakeOf(s),
      ...(stores.model ? { model: (s: string, c: string) => stores.model!(s, c) } : {}),
      search: (s, q) => stores.search(s, q),
      searchWithMode: (s, q) => stores.searchWithMode(s, q),
      deleteDocument: (s, c, d) => stores.deleteDocument(s, c, d),
      close: async () => {},
      write: async (store, collection, document, chunks, model, meta) => this.hold(store, collection, document, chunks, model, meta),
      checkWritable: (s) => stores.checkWritable?.(s),
      writeMany: undefined,
    };
  }

  private hold(store: string, collection: string, document: string, chunks: readonly ChunkToStore[], model: string, meta?: DocumentMeta): void {
    const key = JSON.stringify([store, collection, model]);
    let p = this.pending.get(key);
    if (!p) this.pending.set(key, (p = { store, collection, model, docs: new Map() }));
    p.docs.set(document, { index: p.docs.size, chunks, ...(meta ? { meta } : {}) });
  }

  /** Documents held, by id. */
  get documents(): string[] {
    return [...this.pending.values()].flatMap((p) => [...p.docs.keys()]);
  }

  /**
   * Write everything held, one try. Resolves with the
   * store's refusal of each document it refused (a 409: another model; a 422: input it cannot keep),
   * by id: when the store refuses a write of many documents, each is written again on its own, so a
   * refusal falls on the documents it concerns only. A store that did not take the writes (a 503, or
   * a failure of its own) is a StoreWait: nothing of the batch is recorded, and it runs again later
   * (writes replace by document, so what went in before the failure is not doubled).
   */
  async flush(): Promise<Map<string, ChunkdError>> {
    const refused = new Map<string, ChunkdError>();
    for (const p of this.pending.values()) {
      const docs = [...p.docs.entries()].map(([document, { chunks, meta }]) => ({ document, chunks, ...(meta ? { meta } : {}) }));
      const some = this.stores.writeMany
        ? (ds: typeof docs) => this.stores.writeMany!(p.store, p.collection, ds, p.model)
        : async (ds: typeof docs) => {
            for (const d of ds) await this.stores.write(p.store, p.collection, d.document, d.chunks, p.model, d.meta);
          };
      try {
        await some(docs);
      } catch (e) {
        if (!refusal(e)) throw asStoreWait(e, p.store);
        if (docs.length === 1) refused.set(docs[0]!.document, e);
        else
          for (const d of docs)
            try {
              await some([d]);
            } catch (e) {
              if (!refusal(e)) throw asStoreWait(e, p.store);
              refused.set(d.document, e);
            }
      }
    }
    this.pending.clear();
    return refused;
  }

  /** Forget what is held (a caller that gives up the writes a failed flush left held). */
  clear(): void {
    this.pending.clear();
  }
}

/** The store answered, and refused: the documents are at fault, not the store's reach. */
const refusal = (e: unknown): e is ChunkdError => isChunkdError(e) && e.code !== 'UNAVAILABLE' && e.code !== 'UPSTREAM';
