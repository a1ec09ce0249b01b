/**
 * The writes of a `chunkd ingest` run, made as a job's are (service/stores/write-batch.ts): each
 * file's pipeline runs on its own and its write step's write is held; the held writes go to the
 * store together (one writeMany per collection) once `files` files or `chars` characters of text
 * are held, and at the end. A file is told written only after the store confirmed it, so a run
 * stopped meanwhile writes it again next time; a file the store refused is told failed alone.
 */
import type { ChunkdError } from '../kernel/errors.js';
import type { StoresService } from '../service/stores/service.js';
import { WriteBatch } from '../service/stores/write-batch.js';
import { errorText } from './error-text.js';

/** Characters of text whose writes are held at most before they go (with their chunks and vectors, some tens of MB). */
export const INGEST_BATCH_CHARS = 4_000_000;

export interface IngestOutcome {
  written(id: string, digest: string): void;
  failed(id: string, why: string): void;
}

export class IngestWrites {
  private readonly batch: WriteBatch;
  /** The stores as the pipeline's write step is to see them: each write is held here. */
  readonly service: StoresService;
  private held: { id: string; digest: string }[] = [];
  private heldChars = 0;

  constructor(
    stores: StoresService,
    private readonly most: { files: number; chars: number },
    private readonly outcome: IngestOutcome,
  ) {
    this.batch = new WriteBatch(stores);
    this.service = this.batch.service;
  }

  /** A file whose pipeline ran (its write held): the held writes go once enough are held. */
  async ran(id: string, digest: string, chars: number): Promise<void> {
    this.held.push({ id, digest });
    this.heldChars += chars;
    if (this.held.length >= this.most.files || this.heldChars >= this.most.chars) await this.flush();
  }

  /** Write what is held, one try: a store that did not take the writes fails each held file with its reason. */
  async flush(): Promise<void> {
    const held = this.held;
    this.held = [];
    this.heldChars = 0;
    if (!held.length) return;
    let refused: Map<string, ChunkdError>;
    try {
      refused = await this.batch.flush();
    } catch (e) {
      this.batch.clear(); // one try, as a job's: these files are told failed, and a later run writes them
      for (const h of held) this.outcome.failed(h.id, (e as Error).message);
      return;
    }
    for (const h of held) {
      const e = refused.get(h.id);
      if (e) this.outcome.failed(h.id, errorText(e));
      else this.outcome.written(h.id, h.digest);
    }
  }
}
