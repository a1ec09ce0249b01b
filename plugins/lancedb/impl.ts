import { connect, Index, type Connection, type Table } from '@lancedb/lancedb';
import {
  acceptedValues,
  KeyedQueue,
  type CollectionInfo,
  type DocumentInfo,
  type HandshakeImpl,
  type StoreFilter,
  type StoreHit,
  type StoreQuery,
  type StoreRow,
  type WriteMeta,
} from '../../kernel/index.js';
import type { Static } from '#typebox';
import type { LanceDbConfig } from './config.js';
import { setImmediate as tick } from 'node:timers/promises';
import { ipcFileInTurns, rowSchema, toArrow, toArrowInTurns } from './arrow.js';
import { documentIn, documentIs, literal, metadataIn } from './sql.js';
import { FTS_COLUMN, nprobesFor, Upkeep, VECTOR_INDEX, VECTOR_SEARCH } from './upkeep.js';
import { KnownDocuments } from './known-documents.js';
import { countedQuery } from './text-query.js';

/** Model and dimension of each collection, in the database itself so that every process reads them. */
const META_TABLE = '_chunkd_collections';

/**
 * Rows per commit of an append, and per Arrow batch made between two turns of the event loop: LanceDB
 * serialises what it is given on the calling thread, so a 100,000-row document goes in pieces that
 * each take a few milliseconds, never one that holds up every other request.
 */
const ROWS_PER_TURN = 4096;

function toHit(row: Record<string, unknown>, score: number): StoreHit {
  const document = row.document as string;
  return {
    id: row.id as string,
    document,
    text: row.text as string,
    start_index: Number(row.start_index),
    end_index: Number(row.end_index),
    token_count: Number(row.token_count),
    metadata: { ...(JSON.parse(row.metadata as string) as Record<string, unknown>), document },
    score,
  };
}

export async function create(config: Static<typeof LanceDbConfig>): Promise<HandshakeImpl> {
  // 0: every read sees the latest commit, so another process's (replica's, CLI's) writes are visible at once.
  const db = await connect(config.path, { readConsistencyInterval: 0 });
  return new LanceStore(db, config);
}

/** What a test may ask of this store beyond the contract. */
export interface LanceStoreUpkeep {
  /** Resolves once every upkeep this process has scheduled (compaction, index updates, vector index builds) has run. */
  settled(): Promise<void>;
}

class LanceStore implements HandshakeImpl, LanceStoreUpkeep {
  /** Writes to one table, one at a time in this process: concurrent commits on one table conflict. */
  private readonly queue = new KeyedQueue();
  /** Open tables by name: opening one reads its manifest, which a search should not pay for every time. */
  private readonly tables = new Map<string, Promise<Table | undefined>>();
  /** The recorded model and dimension, read once (a collection's are fixed from its first write until it is dropped). */
  private metaCache: Promise<Map<string, WriteMeta>> | undefined;
  private readonly upkeep: Upkeep;
  /** Which documents each table cannot hold, so that a first ingest appends without asking the table each batch. */
  private readonly known = new KnownDocuments();
  /** Partitions a vector search probes (11% of its index's), by table: read from its index once, again after each upkeep (which may build or train it). */
  private readonly probes = new Map<string, Promise<number>>();

  /** Rows up to which a text search counts a repeated query word (config.exact_text_rows). */
  private readonly exactTextRows: number;
  /** Rows by table, for that choice: counted by a first such search, again after each upkeep (on object storage a count reads the manifest). */
  private readonly rowCounts = new Map<string, Promise<number>>();

  constructor(
    private readonly db: Connection,
    config: Static<typeof LanceDbConfig>,
  ) {
    this.exactTextRows = config.exact_text_rows;
    this.upkeep = new Upkeep(this.queue, {
      vectorIndexRows: config.vector_index_rows,
      settleMs: config.settle_ms,
      upkept: (name) => {
        this.known.forget(name);
        this.probes.delete(name);
        this.rowCounts.delete(name);
      },
    });
  }

  settled(): Promise<void> {
    return this.upkeep.settled();
  }

  /** The table, opened once; undefined when it does not exist (asked again next time: another process may make it). */
  private table(name: string): Promise<Table | undefined> {
    let t = this.tables.get(name);
    if (!t) {
      t = this.db.openTable(name).catch(() => undefined);
      this.tables.set(name, t);
      void t.then((table) => table ?? (this.tables.get(name) === t && this.tables.delete(name)));
    }
    return t;
  }

  /** Forget an open table (dropped, or failing: another process may have dropped it): the next call opens it again. */
  private forget(name: string): void {
    const t = this.tables.get(name);
    this.tables.delete(name);
    this.probes.delete(name);
    this.rowCounts.delete(name);
    void t?.then((table) => table?.close());
  }

  /** Run `work` on a table; a failure forgets the handle, so a table another process dropped and made again is reopened. */
  private async on<T>(name: string, work: (table: Table) => Promise<T>, missing: T): Promise<T> {
    const table = await this.table(name);
    if (!table) return missing;
    try {
      return await work(table);
    } catch (e) {
      this.forget(name);
      throw e;
    }
  }

  async collections(): Promise<CollectionInfo[]> {
    const names = (await this.db.tableNames()).filter((n) => n !== META_TABLE);
    let meta = await this.meta();
    if (names.some((n) => !meta.has(n))) meta = await this.meta(true);
    const listed = await Promise.all(
      names.map(async (name) => {
        try {
          return {
            name,
            count: await this.on(name, (t) => t.countRows(), 0),
            model: meta.get(name)?.model ?? null,
            dimension: meta.get(name)?.dimension ?? null,
          };
        } catch (e) {
          // Dropped while being listed (a DELETE, the start-up sweep of scratch collections): no
          // longer a collection, and no reason to fail the whole listing.
          if (!(await this.db.tableNames()).includes(name)) return undefined;
          throw e;
        }
      }),
    );
    return listed.filter((c) => c !== undefined);
  }

  private meta(fresh = false): Promise<Map<string, WriteMeta>> {
    if (fresh || !this.metaCache) {
      this.metaCache = this.readMeta();
      this.metaCache.catch(() => (this.metaCache = undefined));
    }
    return this.metaCache;
  }

  private async readMeta(): Promise<Map<string, WriteMeta>> {
    if (!(await this.db.tableNames()).includes(META_TABLE)) return new Map();
    const table = await this.db.openTable(META_TABLE);
    try {
      const rows = await table.query().toArray();
      return new Map(rows.map((r) => [r.name as string, { model: r.model as string, dimension: Number(r.dimension) }]));
    } finally {
      table.close();
    }
  }

  /** Record a collection's model and dimension once: the first write's stay (a merge that inserts only). */
  private async record(collection: string, meta: WriteMeta): Promise<void> {
    const row = [{ name: collection, model: meta.model, dimension: meta.dimension }];
    // existOk: another process may create the table between the check and here; the merge then adds this row.
    const table = (await this.db.tableNames()).includes(META_TABLE)
      ? await this.db.openTable(META_TABLE)
      : await this.db.createTable(META_TABLE, row, { existOk: true, mode: 'create' });
    try {
      await table.mergeInsert('name').whenNotMatchedInsertAll().execute(row);
    } finally {
      table.close();
      this.metaCache = undefined;
    }
  }

  write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void> {
    return this.writeMany(collection, [{ document, rows }], meta);
  }

  /**
   * A batch of documents, each replaced. Documents the collection does not hold yet (a first
   * ingest, the bulk of writes) are appended with the engine's own `add`, ROWS_PER_TURN rows a
   * commit. A batch that holds a document already stored is one merge instead: rows upserted by id,
   * and the rows of the batch's documents that the batch does not hold deleted in the same commit,
   * so a reader never sees a document half replaced and a re-run of the batch changes nothing.
   */
  writeMany(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void> {
    return this.queue.run(collection, async () => {
      this.upkeep.writing(collection);
      const rows = docs.flatMap((d) => d.rows);
      let table = await this.table(collection);
      if (!table && rows.length) table = await this.createCollection(collection, rows, meta);
      else if (table) {
        try {
          await this.replace(collection, table, docs, rows);
        } catch (e) {
          this.known.forget(collection);
          this.forget(collection);
          throw e;
        }
      }
      if (table) await this.upkeep.committed(collection, table);
    });
  }

  private async createCollection(collection: string, rows: StoreRow[], meta: WriteMeta): Promise<Table> {
    this.known.forget(collection);
    await this.record(collection, meta);
    const schema = rowSchema(meta.dimension);
    // existOk: another process made the table between the check and here: then this batch is merged into it.
    const table = await this.db.createTable(collection, toArrow(schema, rows.slice(0, ROWS_PER_TURN)), { existOk: true, mode: 'create' });
    this.tables.set(collection, Promise.resolve(table));
    await this.append(collection, table, schema, rows.slice(ROWS_PER_TURN));
    if ((await table.countRows()) !== rows.length)
      await this.replace(
        collection,
        table,
        [...new Set(rows.map((r) => r.document))].map((document) => ({ document, rows: rows.filter((r) => r.document === document) })),
        rows,
      );
    await this.upkeep.created(table);
    return table;
  }

  /**
   * Documents the table does not hold yet, appended in commits of ROWS_PER_TURN rows: a reader may
   * see a large new document's first commits before its last (it had no rows before, so no reader
   * sees it mixed with an older version), and a write that fails half way is replaced whole when
   * it is tried again (the merge below).
   */
  private async append(collection: string, table: Table, schema: Awaited<ReturnType<typeof schemaOf>>, rows: StoreRow[]): Promise<void> {
    for (let at = 0; at < rows.length; at += ROWS_PER_TURN) {
      await tick();
      const commit = rows.slice(at, at + ROWS_PER_TURN);
      const { version } = await table.add(toArrow(schema, commit));
      this.known.committed(collection, version, [...new Set(commit.map((r) => r.document))], commit.length);
    }
  }

  private async replace(collection: string, table: Table, docs: { document: string; rows: StoreRow[] }[], rows: StoreRow[]): Promise<void> {
    if (!docs.length) return;
    const documents = docs.map((d) => d.document);
    if (await this.known.absent(collection, table, documents)) return this.append(collection, table, await schemaOf(table), rows);
    const ofBatch = documentIn(documents);
    const stored = await table.query().where(ofBatch).select(['id']).limit(1).toArray();
    if (!stored.length) return this.append(collection, table, await schemaOf(table), rows);
    // One commit, so no reader sees a document half replaced: its rows are made into Arrow a batch per turn.
    const { version } = rows.length ? await merge(table, ofBatch, await schemaOf(table), rows) : await table.delete(ofBatch);
    this.known.committed(collection, version, documents, rows.length);
  }

  /** The collection's upkeep now (compaction, new rows folded into its indexes, the vector index past its threshold). */
  settle(collection: string): Promise<void> {
    return this.upkeep.settle(collection);
  }

  delete(collection: string, document: string): Promise<number> {
    return this.queue.run(collection, () =>
      this.on(
        collection,
        async (table) => {
          this.upkeep.writing(collection);
          const { numDeletedRows, version } = await table.delete(documentIs(document));
          this.known.committed(collection, version, [], 0);
          if (numDeletedRows) await this.upkeep.committed(collection, table);
          return numDeletedRows;
        },
        0,
      ),
    );
  }

  drop(collection: string): Promise<void> {
    return this.queue.run(collection, async () => {
      this.upkeep.forget(collection);
      this.known.forget(collection);
      this.forget(collection);
      if ((await this.db.tableNames()).includes(collection)) await this.db.dropTable(collection);
      this.metaCache = undefined;
      if (!(await this.db.tableNames()).includes(META_TABLE)) return;
      const meta = await this.db.openTable(META_TABLE);
      try {
        await meta.delete(`name = ${literal(collection)}`);
      } finally {
        meta.close();
      }
    });
  }

  search(collection: string, q: StoreQuery): Promise<StoreHit[]> {
    return this.on(
      collection,
      async (table) => {
        const where = whereOf(q.filter);
        if (q.embedding) {
          let query = table.vectorSearch(q.embedding).distanceType('cosine').limit(q.k);
          // One document's rows are few: they are compared exactly (the scalar index finds them), never through partitions that may miss them.
          if (where) query = query.where(where).bypassVectorIndex();
          else query = query.nprobes(await this.nprobes(collection, table)).refineFactor(VECTOR_SEARCH.refineFactor);
          // Cosine distance is 1 − cosine similarity: the score is the similarity, higher is better.
          return (await query.toArray()).map((r) => toHit(r, 1 - Number(r._distance)));
        }
        // a table made before index_text existed has its full-text index on text
        const column = (await schemaOf(table)).fields.some((f) => f.name === FTS_COLUMN) ? FTS_COLUMN : 'text';
        // LanceDB's match query counts a repeated query word once; BM25 as chunkd eval runs it counts it each time.
        // A boolean query of boosted words counts it (the same ranking as chunkd eval's), but any boolean query gives
        // up LanceDB's pruning of common words' long postings, and over half of the benchmark's questions repeat a
        // word ("the"): for those, p50 11 ms against 5 at 10^4 chunks, 70 against 7 at 10^5 (docs/stores.md). So it
        // is asked up to exact_text_rows rows, and the words as they are past them.
        const text = q.text ?? '';
        const counted = countedQuery(text, column);
        const exact = counted && this.exactTextRows > 0 && (await this.rowCount(collection, table)) <= this.exactTextRows;
        let query = (exact ? table.search(counted, 'fts') : table.search(text, 'fts', column)).limit(q.k);
        if (where) query = query.where(where);
        // Best first: rows not yet folded into the full-text index come back after the indexed ones, whatever their score.
        return (await query.toArray()).map((r) => toHit(r, Number(r._score))).sort((a, b) => b.score - a.score);
      },
      [],
    );
  }

  /** `collection`'s rows, counted by its first text search since its last upkeep (rows written later count after the next). */
  private rowCount(collection: string, table: Table): Promise<number> {
    let n = this.rowCounts.get(collection);
    if (!n) {
      n = table.countRows();
      this.rowCounts.set(collection, n);
      n.catch(() => this.rowCounts.get(collection) === n && this.rowCounts.delete(collection));
    }
    return n;
  }

  /** The partitions to probe in `collection`'s vector index (its size read once per upkeep; without an index the search is exact and it is unused). */
  private nprobes(collection: string, table: Table): Promise<number> {
    let n = this.probes.get(collection);
    if (!n) {
      n = table.indexStats(VECTOR_INDEX).then(
        (stats) => nprobesFor(stats?.numIndexedRows ?? 0),
        () => nprobesFor(0),
      );
      this.probes.set(collection, n);
    }
    return n;
  }

  /** A scan of the document and metadata columns, counted here: LanceDB's query has no GROUP BY. */
  documents(collection: string, page: { after?: string; limit: number }): Promise<DocumentInfo[]> {
    return this.on(
      collection,
      async (table) => {
        let query = table.query().select(['document', 'metadata']);
        if (page.after !== undefined) query = query.where(`document > ${literal(page.after)}`);
        const found = new Map<string, DocumentInfo>();
        for await (const batch of query) {
          const documents = batch.getChild('document')!;
          const metadata = batch.getChild('metadata')!;
          for (let i = 0; i < batch.numRows; i++) {
            const document = documents.get(i) as string;
            const seen = found.get(document);
            if (seen) seen.chunks++;
            else found.set(document, { document, name: nameOf(metadata.get(i) as string), chunks: 1 });
          }
        }
        return [...found.values()].sort((a, b) => (a.document < b.document ? -1 : a.document > b.document ? 1 : 0)).slice(0, page.limit);
      },
      [],
    );
  }

  async close(): Promise<void> {
    await this.upkeep.close();
    for (const name of [...this.tables.keys()]) this.forget(name);
    this.db.close();
  }
}

/** A row's metadata.name, or null. */
function nameOf(metadata: string): string | null {
  const name = (JSON.parse(metadata) as { name?: unknown }).name;
  return typeof name === 'string' ? name : null;
}

/** A search's filter as one LanceDB where clause (every literal escaped), or undefined for none. */
function whereOf(filter: StoreFilter | undefined): string | undefined {
  const terms = [
    ...(filter?.document === undefined ? [] : [documentIs(filter.document)]),
    ...Object.entries(filter?.metadata ?? {}).map(([key, condition]) => metadataIn(key, acceptedValues(condition))),
  ];
  return terms.length ? terms.join(' AND ') : undefined;
}

const schemas = new WeakMap<Table, Promise<Awaited<ReturnType<Table['schema']>>>>();
/** A table's schema, read once per handle (a collection's columns do not change). */
function schemaOf(table: Table) {
  let s = schemas.get(table);
  if (!s) schemas.set(table, (s = table.schema()));
  return s;
}

/** LanceDB's native merge builder, as its JavaScript `Table` holds it (`inner`, not in its typings). */
interface NativeMerge {
  whenMatchedUpdateAll(where?: string): NativeMerge;
  whenNotMatchedInsertAll(): NativeMerge;
  whenNotMatchedBySourceDelete(where?: string): NativeMerge;
  execute(file: Buffer): Promise<{ version: number }>;
}

/** LanceDB's native table behind its JavaScript `Table`, when it has the merge builder the handshake uses. */
export function nativeTable(table: Table): { mergeInsert(on: string[]): NativeMerge } | undefined {
  const inner = (table as unknown as { inner?: { mergeInsert?: unknown } }).inner;
  return typeof inner?.mergeInsert === 'function' ? (inner as { mergeInsert(on: string[]): NativeMerge }) : undefined;
}

/**
 * Replace the rows of the documents `ofBatch` selects with `rows`, in one commit. The rows go to
 * LanceDB's native merge as an Arrow IPC file made a slice per turn (ipcFileInTurns): its
 * JavaScript `execute` would make that file in one call on the event loop. Where the native table
 * is not there (another LanceDB version), its JavaScript merge.
 */
async function merge(table: Table, ofBatch: string, schema: Awaited<ReturnType<typeof schemaOf>>, rows: StoreRow[]): Promise<{ version: number }> {
  const inner = nativeTable(table);
  if (!inner)
    return table
      .mergeInsert('id')
      .whenMatchedUpdateAll()
      .whenNotMatchedInsertAll()
      .whenNotMatchedBySourceDelete({ where: ofBatch })
      .execute(await toArrowInTurns(schema, rows, ROWS_PER_TURN));
  return inner
    .mergeInsert(['id'])
    .whenMatchedUpdateAll()
    .whenNotMatchedInsertAll()
    .whenNotMatchedBySourceDelete(ofBatch)
    .execute(await ipcFileInTurns(schema, rows, ROWS_PER_TURN));
}
