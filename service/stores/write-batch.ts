/**
 * A job's writes, held until its batch has run and then written together (one call per
 * collection when the handshake takes many documents at once), so a batch's documents are
 * recorded done only after the store confirmed them. A store that is down is waited for: the
 * batch retries its writes with growing pauses until the store answers or the server stops.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Chunk } from '../../kernel/chunk.js';
import { isChunkdError, type ChunkdError } from '../../kernel/errors.js';
import type { StoresService } from './service.js';

interface Pending {
  store: string;
  collection: string;
  model: string;
  docs: Map<string, { index: number; chunks: readonly Chunk[] }>;
}

/** Longest pause between two tries of a store that is down. */
const MAX_PAUSE_MS = 30_000;

export class WriteBatch {
  private readonly pending = new Map<string, Pending>();
  /** Tries that found the store down (what tests count). */
  retries = 0;

  constructor(private readonly stores: StoresService) {}

  /** The stores as a recipe's write step sees them: every write is held here (keyed by document: a later write of one document replaces an earlier one). */
  get service(): StoresService {
    const { stores } = this;
    return {
      list: () => stores.list(),
      names: () => stores.names(),
      byHandshake: (h) => stores.byHandshake(h),
      handshakeOf: (s) => stores.handshakeOf(s),
      search: (s, q) => stores.search(s, q),
      deleteDocument: (s, c, d) => stores.deleteDocument(s, c, d),
      close: async () => {},
      write: async (store, collection, document, chunks, model) => this.hold(store, collection, document, chunks, model),
      checkWritable: (s) => stores.checkWritable?.(s),
      writeMany: undefined,
    };
  }

  private hold(store: string, collection: string, document: string, chunks: readonly Chunk[], model: string): void {
    const key = JSON.stringify([store, collection, model]);
    let p = this.pending.get(key);
    if (!p) this.pending.set(key, (p = { store, collection, model, docs: new Map() }));
    p.docs.set(document, { index: p.docs.size, chunks });
  }

  /** Documents held, by id. */
  get documents(): string[] {
    return [...this.pending.values()].flatMap((p) => [...p.docs.keys()]);
  }

  /**
   * Write everything held. Resolves with the store's refusal of each document it refused (a 409:
   * another model), by id; waits out a store that is down (any other failure) until it answers,
   * and throws only once `stopping()` says the process is going away (the batch is then retried
   * on the next start).
   */
  async flush(stopping: () => boolean, onWait?: (error: unknown, pauseMs: number) => void): Promise<Map<string, ChunkdError>> {
    const refused = new Map<string, ChunkdError>();
    for (const p of this.pending.values()) {
      const docs = [...p.docs.entries()].map(([document, { chunks }]) => ({ document, chunks }));
      for (let pause = 500; ; pause = Math.min(MAX_PAUSE_MS, pause * 2)) {
        try {
          if (this.stores.writeMany) await this.stores.writeMany(p.store, p.collection, docs, p.model);
          else for (const d of docs) await this.stores.write(p.store, p.collection, d.document, d.chunks, p.model);
          break;
        } catch (e) {
          if (isChunkdError(e) && e.code !== 'UNAVAILABLE' && e.code !== 'UPSTREAM') {
            for (const d of docs) refused.set(d.document, e);
            break;
          }
          if (stopping()) throw e;
          this.retries++;
          onWait?.(e, pause);
          await sleep(pause);
          if (stopping()) throw e;
        }
      }
    }
    this.pending.clear();
    return refused;
  }
}
