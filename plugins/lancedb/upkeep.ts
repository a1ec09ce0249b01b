import { Index, type Table } from '@lancedb/lancedb';
import type { KeyedQueue } from '../../kernel/index.js';

/**
 * What keeps a table fast to search without slowing its writes: LanceDB's `optimize()` (small
 * fragments compacted, new rows folded into the full-text, document and vector indexes, versions
 * older than 7 days pruned) and, past a size, an approximate vector index.
 *
 * A write only appends (or merges) and commits. Indexing real text costs more than writing it (the
 * full-text index of 10^5 chunks of ~750 characters takes longer to build than the rows take to
 * add), so upkeep runs when a table's writes settle: `settleMs` after its last commit, in the
 * table's write queue, so no write of this process runs beside it. Rows written since are still
 * found meanwhile, scanned rather than looked up. A writer that never pauses still gets upkeep
 * every FORCE_COMMITS commits (fragments and unindexed rows stay bounded), and a process that is
 * closing runs what is pending first (`chunkd ingest` leaves its collection indexed).
 *
 * The vector index is built or trained again beside the table's writes, not in its queue: at 10^6
 * rows that takes about a minute here (71.6 s for the whole upkeep, bench/results.md), longer than
 * a write may wait for its store (`chunkd ingest` of 10^6 chunks had 32 files time out with the
 * build in the queue, and none once it was moved out). LanceDB commits the index beside appends,
 * deletes and merges (it covers the rows of the version it read; rows written since are searched by scan
 * until the next upkeep folds them in; measured with writes every 0.1 s beside a build over 3 × 10^5
 * rows of random vectors: no write failed, none waited over 0.5 s). While one is built, upkeep starts
 * no second build and leaves compaction out (it rewrites the fragments the index is being built
 * over; not tried beside a build): the commits made meanwhile are compacted once it ends.
 *
 * Counts are per process: each replica tends the commits it made, and optimize is safe beside
 * another writer (a conflicting commit is retried by LanceDB, or fails and is tried at the next upkeep).
 */

/** Commits after which a table that is written without pause gets its upkeep anyway (each commit is one fragment). */
export const FORCE_COMMITS = 200;
/** The column a new table's full-text index reads (a table written before it existed has `text` only, searched there). */
export const FTS_COLUMN = 'index_text';
/**
 * The full-text index's words: those of chunkd eval's BM25 (service/evaluation/bm25.ts: runs of
 * letters and digits, lowercased, no stemming, no stop words; LanceDB drops words of over 40
 * characters, which BM25 keeps), so the store's text mode ranks as the evaluation that chose it
 * measured (bench/results.md, "Search modes through the default store"). No positions: chunkd
 * asks no phrase queries.
 */
export const FTS_OPTIONS = { withPosition: false, baseTokenizer: 'simple', lowercase: true, stem: false, removeStopWords: false, asciiFolding: false } as const;
/** The vector column and its index's name. */
const VECTOR = 'vector';
export const VECTOR_INDEX = 'vector_idx';

/**
 * How an indexed table is searched, chosen by recall@10 against exact search on the stores bench's
 * real chunks (bench/stores/index-grid.ts; figures in plugins/lancedb/README.md): 11% of the
 * index's partitions probed, at least 40, and the 10 × k best by code re-ranked by their full
 * vectors. Recall falls with the share of partitions probed, not with their number: 40 of 316 at
 * 10^5 found 0.992 of the exact top 10, 40 of 1,000 at 10^6 only 0.922, 80 0.947, 120 0.963.
 */
export const VECTOR_SEARCH = { minNprobes: 40, probedShare: 0.11, refineFactor: 10 };

/** An index's partitions for the rows it is trained on: about √rows. */
export const partitionsFor = (rows: number): number => Math.max(1, Math.round(Math.sqrt(rows)));

/** Partitions probed per search of an index over `indexedRows` rows. */
export const nprobesFor = (indexedRows: number): number =>
  Math.max(VECTOR_SEARCH.minNprobes, Math.round(partitionsFor(indexedRows) * VECTOR_SEARCH.probedShare));

/**
 * The approximate index for `rows` vectors of `dimension`: IVF-PQ, about √rows partitions, 4
 * dimensions per sub-vector, its codes re-ranked by the full vectors (refineFactor). Trained on 64
 * samples a partition for 10 iterations: LanceDB's defaults (256, 50) took 722 s at 10^5 chunks on
 * this 2-core machine; the refine step makes up for a coarser codebook.
 */
export function vectorIndex(rows: number, dimension: number): Index {
  const numPartitions = partitionsFor(rows);
  let numSubVectors = Math.max(1, Math.floor(dimension / 4));
  while (dimension % numSubVectors) numSubVectors--;
  return Index.ivfPq({ distanceType: 'cosine', numPartitions, numSubVectors, maxIterations: 10, sampleRate: 64 });
}

export interface UpkeepOptions {
  /** Rows past which a table gets an approximate vector index (0: never; every search stays exact). */
  vectorIndexRows: number;
  /** Quiet time after a table's last commit before its upkeep runs. */
  settleMs: number;
  /** Called after a table's upkeep has committed, and after a vector index build ends (whether or not all of it succeeded). */
  upkept?: (name: string) => void;
}

interface State {
  table: Table;
  commits: number;
  /** Counts writes begun: an upkeep whose wait saw a write begin gives way to the timer that write sets. */
  writes: number;
  timer?: NodeJS.Timeout;
  /** The upkeep under way or queued. */
  running?: Promise<void>;
}

export class Upkeep {
  private readonly tables = new Map<string, State>();
  /** Rows a vector index was trained on, by table: past twice that it is trained again (its partitions no longer fit). */
  private readonly trained = new Map<string, number>();
  /** Vector index builds under way, by table (beside its writes, not in its queue). */
  private readonly building = new Map<string, Promise<void>>();

  constructor(
    private readonly queue: KeyedQueue,
    private readonly options: UpkeepOptions,
  ) {}

  /**
   * A new table's indexes. The full-text index is trained on the rows the table is created with: a
   * query over rows it has not indexed yet ranks them poorly (measured: recall@5 40.8 against
   * BM25's 94.7 on a fresh table, 96.1 once indexed), and rows written later are folded in by
   * upkeep when writes settle. The document index is made empty (`train: false`). Full text on
   * `index_text` (the chunk's context and text, kernel/index-text.ts; BM25, no positions: chunkd asks no phrase queries) and a scalar index on `document`
   * (replacement and filters look documents up).
   */
  async created(table: Table): Promise<void> {
    await table.createIndex(FTS_COLUMN, { config: Index.fts(FTS_OPTIONS), replace: true, train: true });
    await table.createIndex('document', { config: Index.btree(), replace: true, train: false });
  }

  /**
   * Call when a write to `name` begins, inside its write queue: the quiet time counts from the end of
   * the last write, never across one (a write of a large batch can take longer than settleMs, and an
   * upkeep between every two writes is what this class exists to avoid).
   */
  writing(name: string): void {
    const s = this.tables.get(name);
    if (!s) return;
    s.writes++;
    clearTimeout(s.timer);
    s.timer = undefined;
  }

  /** Call after a commit to `name`, inside that table's write queue. Resolves at once unless the table is due an upkeep that cannot wait. */
  async committed(name: string, table: Table): Promise<void> {
    let s = this.tables.get(name);
    if (!s) this.tables.set(name, (s = { table, commits: 0, writes: 0 }));
    const state = s;
    state.table = table;
    state.commits++;
    clearTimeout(state.timer);
    if (state.commits >= FORCE_COMMITS) return this.run(name, state);
    const writes = state.writes;
    state.timer = setTimeout(
      () => void this.queue.run(name, () => (state.writes === writes ? this.run(name, state) : Promise.resolve())).catch(() => {}),
      this.options.settleMs,
    );
    state.timer.unref();
  }

  /** Every pending upkeep run now, and awaited with the vector index builds under way (tests, and a process about to close). */
  async settled(): Promise<void> {
    await Promise.all([...this.tables.entries()].map(([name, s]) => this.drain(name, s)));
  }

  /** `name`'s pending upkeep run now, and awaited: every row written so far folded into its indexes. */
  async settle(name: string): Promise<void> {
    const s = this.tables.get(name);
    if (s) await this.drain(name, s);
  }

  /** The table's upkeep now if commits wait for one, then its vector index build if one is under way, until neither is left. */
  private async drain(name: string, s: State): Promise<void> {
    for (;;) {
      clearTimeout(s.timer);
      s.timer = undefined;
      await this.queue.run(name, () => (s.commits ? this.run(name, s) : Promise.resolve()));
      const build = this.building.get(name);
      if (!build) return;
      await build;
    }
  }

  async close(): Promise<void> {
    await this.settled();
    this.tables.clear();
  }

  /** A dropped table is tended no longer (evaluation drops a scratch table per run). */
  forget(name: string): void {
    clearTimeout(this.tables.get(name)?.timer);
    this.tables.delete(name);
    this.trained.delete(name);
    this.building.delete(name);
  }

  private async run(name: string, s: State): Promise<void> {
    if (this.building.has(name)) return; // its commits stay counted: the build's end runs this upkeep
    s.commits = 0;
    s.timer = undefined;
    try {
      await s.table.optimize();
      await this.vectorIndex(name, s.table);
    } catch {
      // Upkeep is not the write: the commits stand, and the next upkeep tries again.
    } finally {
      this.options.upkept?.(name);
    }
  }

  /** Start building (or training again) the approximate vector index once the table is past the threshold; the build runs beside the table's writes. */
  private async vectorIndex(name: string, table: Table): Promise<void> {
    const threshold = this.options.vectorIndexRows;
    if (threshold <= 0) return;
    const rows = await table.countRows();
    if (rows < threshold) return;
    let trained = this.trained.get(name);
    if (trained === undefined) {
      const stats = (await table.listIndices()).some((i) => i.name === VECTOR_INDEX) ? await table.indexStats(VECTOR_INDEX) : undefined;
      // An index another process (or an earlier run) built: taken as trained on the rows it holds.
      trained = stats ? stats.numIndexedRows : 0;
    }
    if (trained && rows < 2 * trained) return;
    const dimension = (await table.schema()).fields.find((f) => f.name === VECTOR)!.type.listSize as number;
    // A build of a table dropped meanwhile (forget) counts for nothing: a table made again under its name trains its own.
    const current = () => this.building.get(name) === build;
    const build: Promise<void> = table
      .createIndex(VECTOR, { config: vectorIndex(rows, dimension), name: VECTOR_INDEX, replace: true })
      .then(() => void (current() && this.trained.set(name, rows)))
      .catch(() => {}) // the next upkeep tries again
      .finally(() => {
        if (!current()) return;
        this.building.delete(name);
        this.options.upkept?.(name);
        // The commits made beside the build: compacted and folded into the indexes now.
        const s = this.tables.get(name);
        if (s?.commits) void this.queue.run(name, () => (s.commits ? this.run(name, s) : Promise.resolve()));
      });
    this.building.set(name, build);
  }
}
