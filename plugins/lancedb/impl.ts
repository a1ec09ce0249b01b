import { connect, Index, type Connection, type Table } from '@lancedb/lancedb';
import { KeyedQueue, type CollectionInfo, type HandshakeImpl, type StoreHit, type StoreQuery, type StoreRow, type WriteMeta } from '../../kernel/index.js';
import type { Static } from 'typebox';
import type { LanceDbConfig } from './index.js';
import { documentIs, literal } from './sql.js';
import { Upkeep } from './upkeep.js';

/** Model and dimension of each collection, in the database itself so that every process reads them. */
const META_TABLE = '_chunkd_collections';
const FTS_COLUMN = 'text';

// A type, not an interface: LanceDB takes rows as Record<string, unknown>. The contract's row, with
// its metadata as JSON text and its embedding as the plain array LanceDB's vector column reads.
type LanceRow = Omit<StoreRow, 'metadata' | 'embedding'> & { metadata: string; vector: number[] };

const toLance = (row: StoreRow): LanceRow => ({
  id: row.id,
  document: row.document,
  text: row.text,
  start_index: row.start_index,
  end_index: row.end_index,
  token_count: row.token_count,
  metadata: JSON.stringify(row.metadata),
  vector: Array.from(row.embedding),
});

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

export async function create({ path }: Static<typeof LanceDbConfig>): Promise<HandshakeImpl> {
  // 0: every read sees the latest commit, so another process's (replica's, CLI's) writes are visible at once.
  const db = await connect(path, { readConsistencyInterval: 0 });
  return new LanceStore(db);
}

class LanceStore implements HandshakeImpl {
  /** Writes to one table, one at a time in this process: concurrent merge commits on one table conflict. */
  private readonly queue = new KeyedQueue();
  /** Compaction and index upkeep after every 20th commit to a table (plugins/lancedb/upkeep.ts). */
  private readonly upkeep = new Upkeep();

  constructor(private readonly db: Connection) {}

  private async table(name: string): Promise<Table | undefined> {
    return (await this.db.tableNames()).includes(name) ? this.db.openTable(name) : undefined;
  }

  async collections(): Promise<CollectionInfo[]> {
    const names = (await this.db.tableNames()).filter((n) => n !== META_TABLE);
    const meta = await this.meta();
    return Promise.all(
      names.map(async (name) => {
        const table = await this.db.openTable(name);
        try {
          return { name, count: await table.countRows(), model: meta.get(name)?.model ?? null, dimension: meta.get(name)?.dimension ?? null };
        } finally {
          table.close();
        }
      }),
    );
  }

  private async meta(): Promise<Map<string, WriteMeta>> {
    const table = await this.table(META_TABLE);
    if (!table) return new Map();
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
    const table = (await this.table(META_TABLE)) ?? (await this.db.createTable(META_TABLE, row, { existOk: true, mode: 'create' }));
    try {
      await table.mergeInsert('name').whenNotMatchedInsertAll().execute(row);
    } finally {
      table.close();
    }
  }

  write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void> {
    return this.writeMany(collection, [{ document, rows }], meta);
  }

  /**
   * One merge per batch: rows are upserted by id, and the rows of the batch's documents that the
   * batch does not hold are deleted in the same commit, so a reader never sees a document half
   * replaced and a re-run of the batch changes nothing.
   */
  writeMany(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void> {
    return this.queue.run(collection, async () => {
      const rows = docs.flatMap((d) => d.rows.map(toLance));
      const ofBatch = docs.length ? docs.map((d) => documentIs(d.document)).join(' OR ') : 'false';
      let table = await this.table(collection);
      if (!table && rows.length) {
        await this.record(collection, meta);
        table = await this.db.createTable(collection, rows, { existOk: true, mode: 'create' });
        await table.createIndex(FTS_COLUMN, { config: Index.fts(), replace: true });
        // existOk: another process made the table between the check and here; merge as below, a no-op otherwise.
      }
      if (!table) return;
      try {
        if (rows.length) await table.mergeInsert('id').whenMatchedUpdateAll().whenNotMatchedInsertAll().whenNotMatchedBySourceDelete({ where: ofBatch }).execute(rows);
        else await table.delete(ofBatch);
        await this.upkeep.committed(collection, table);
      } finally {
        table.close();
      }
    });
  }

  delete(collection: string, document: string): Promise<number> {
    return this.queue.run(collection, async () => {
      const table = await this.table(collection);
      if (!table) return 0;
      try {
        const { numDeletedRows } = await table.delete(documentIs(document));
        await this.upkeep.committed(collection, table);
        return numDeletedRows;
      } finally {
        table.close();
      }
    });
  }

  drop(collection: string): Promise<void> {
    return this.queue.run(collection, async () => {
      if ((await this.db.tableNames()).includes(collection)) await this.db.dropTable(collection);
      this.upkeep.forget(collection);
      const meta = await this.table(META_TABLE);
      if (!meta) return;
      try {
        await meta.delete(`name = ${literal(collection)}`);
      } finally {
        meta.close();
      }
    });
  }

  async search(collection: string, q: StoreQuery): Promise<StoreHit[]> {
    const table = await this.table(collection);
    if (!table) return [];
    try {
      const where = q.filter?.document === undefined ? undefined : documentIs(q.filter.document);
      if (q.embedding) {
        let query = table.vectorSearch(q.embedding).distanceType('cosine').limit(q.k);
        if (where) query = query.where(where);
        // Cosine distance is 1 − cosine similarity: the score is the similarity, higher is better.
        return (await query.toArray()).map((r) => toHit(r, 1 - Number(r._distance)));
      }
      let query = table.search(q.text ?? '', 'fts', FTS_COLUMN).limit(q.k);
      if (where) query = query.where(where);
      return (await query.toArray()).map((r) => toHit(r, Number(r._score)));
    } finally {
      table.close();
    }
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
