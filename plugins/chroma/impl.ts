import {
  AdminClient,
  ChromaClient,
  ChromaNotFoundError,
  knownEmbeddingFunctions,
  registerEmbeddingFunction,
  type Collection,
  type Metadata,
  type Where,
} from 'chromadb';
import type { Static } from '#typebox';
import {
  acceptedValues,
  ChunkdError,
  KeyedQueue,
  type StoreFilter,
  type CollectionInfo,
  type HandshakeImpl,
  type StoreHit,
  type StoreQuery,
  type StoreRow,
  type WriteMeta,
} from '../../kernel/index.js';
import type { ChromaConfig } from './index.js';
import { chromaName } from './names.js';

/** Keys of a collection's metadata: the chunkd name (a Chroma name may carry a suffix), the model and dimension of its vectors. */
const NAME = 'chunkd:collection';
const MODEL = 'chunkd:model';
const DIMENSION = 'chunkd:dimension';
/** Collections listed per request while reading them all. */
const PAGE = 100;

/**
 * The embedding function chunkd's collections are made with: chunkd always sends vectors, so it
 * never embeds. Registered under a name, the client finds it again when it lists collections
 * (instead of warning on the console for each one), and its default space makes them cosine.
 */
class ChunkdVectors {
  readonly name = 'chunkd';
  static buildFromConfig(): ChunkdVectors {
    return new ChunkdVectors();
  }
  generate(): Promise<number[][]> {
    return Promise.reject(new Error('chunkd sends its own embeddings to Chroma and never asks it to embed.'));
  }
  getConfig(): Record<string, never> {
    return {};
  }
  defaultSpace(): 'cosine' {
    return 'cosine';
  }
  supportedSpaces(): 'cosine'[] {
    return ['cosine'];
  }
}
if (!knownEmbeddingFunctions.has('chunkd')) registerEmbeddingFunction('chunkd', ChunkdVectors);

export async function create(config: Static<typeof ChromaConfig>): Promise<HandshakeImpl> {
  const url = new URL(config.url);
  const ssl = url.protocol === 'https:';
  const server = {
    host: url.hostname,
    port: Number(url.port || (ssl ? 443 : 80)),
    ssl,
    headers: (config.token ? { 'x-chroma-token': config.token } : {}) as Record<string, string>,
  };
  // The tenant and database are read here (not left to the client, which would fall back to
  // CHROMA_TENANT/CHROMA_DATABASE or ask the server): a store writes where its connection says.
  try {
    await new AdminClient(server).getDatabase({ name: config.database, tenant: config.tenant });
  } catch (e) {
    if (e instanceof ChromaNotFoundError)
      throw new Error(
        `The Chroma server has no database '${config.database}' in the tenant '${config.tenant}': create it, or set database (and tenant) to one that exists.`,
      );
    throw e;
  }
  return new ChromaStore(new ChromaClient({ ...server, tenant: config.tenant, database: config.database }));
}

const isNotFound = (e: unknown) => e instanceof ChromaNotFoundError;

function toHit(id: string, text: string | null, meta: Metadata | null, distance: number | null): StoreHit {
  const m = meta ?? {};
  const document = String(m.document);
  return {
    id,
    document,
    text: text ?? '',
    start_index: Number(m.start_index),
    end_index: Number(m.end_index),
    token_count: Number(m.token_count),
    metadata: { ...(JSON.parse(String(m.metadata ?? '{}')) as Record<string, unknown>), document },
    // Cosine distance is 1 − cosine similarity.
    score: 1 - Number(distance),
  };
}

/** Where a row's scalar metadata field `key` is kept beside the JSON, for Chroma's `where` to filter on. */
const FIELD = (key: string) => `m.${key}`;

/**
 * Chroma metadata holds only scalars: the chunk's own metadata (lists, objects) travels as JSON,
 * and each of its top-level string, number or boolean fields also as a field of its own, for filters.
 */
const toMetadata = (row: StoreRow): Metadata => ({
  document: row.document,
  start_index: row.start_index,
  end_index: row.end_index,
  token_count: row.token_count,
  metadata: JSON.stringify(row.metadata),
  ...Object.fromEntries(
    Object.entries(row.metadata).flatMap(([k, v]) =>
      typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v)) ? [[FIELD(k), v]] : [],
    ),
  ),
});

/** A search's filter as Chroma's `where` (values are data in its JSON, never query text), or undefined for none. */
function whereOf(filter: StoreFilter | undefined): Where | undefined {
  const terms: Where[] = [
    ...(filter?.document === undefined ? [] : [{ document: filter.document }]),
    ...Object.entries(filter?.metadata ?? {}).map(([key, c]) => ({ [FIELD(key)]: { $in: acceptedValues(c) } }) as Where),
  ];
  return terms.length === 0 ? undefined : terms.length === 1 ? terms[0] : { $and: terms };
}

class ChromaStore implements HandshakeImpl {
  /** Writes to one collection, one at a time in this process: a write deletes the document's rows it did not just upsert, which two interleaved writes of one document would do to each other. */
  private readonly queue = new KeyedQueue();
  private maxBatch?: Promise<number>;
  private readonly vectors = new ChunkdVectors();

  constructor(private readonly client: ChromaClient) {}

  /** The collection chunkd made under this name; undefined when there is none. */
  private async find(collection: string): Promise<Collection | undefined> {
    try {
      const found = await this.client.getCollection({ name: chromaName(collection), embeddingFunction: this.vectors });
      return found.metadata?.[NAME] === collection ? found : undefined;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  private batchSize(): Promise<number> {
    this.maxBatch ??= this.client.getMaxBatchSize().catch((e: unknown) => {
      this.maxBatch = undefined;
      throw e;
    });
    return this.maxBatch;
  }

  async collections(): Promise<CollectionInfo[]> {
    const all: Collection[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.client.listCollections({ limit: PAGE, offset });
      all.push(...page);
      if (page.length < PAGE) break;
    }
    // Only the collections chunkd made: the database may hold others, which it neither lists nor writes.
    const mine = all.filter((c) => typeof c.metadata?.[NAME] === 'string' && chromaName(c.metadata[NAME] as string) === c.name);
    const infos = await Promise.all(
      mine.map(async (c) => ({
        name: c.metadata![NAME] as string,
        count: await c.count(),
        model: String(c.metadata![MODEL]),
        dimension: Number(c.metadata![DIMENSION]),
      })),
    );
    return infos.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void> {
    return this.writeMany(collection, [{ document, rows }], meta);
  }

  /**
   * Upsert every row by id, then delete the rows of these documents that were not written: Chroma
   * has no transaction, so a failure between the two leaves old rows beside the new (which the
   * next write of the document removes), never a document without its rows.
   */
  writeMany(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void> {
    return this.queue.run(collection, async () => {
      const name = chromaName(collection);
      const target = await this.client.getOrCreateCollection({
        name,
        embeddingFunction: this.vectors,
        metadata: { [NAME]: collection, [MODEL]: meta.model, [DIMENSION]: meta.dimension },
        configuration: { hnsw: { space: 'cosine' } },
      });
      if (target.metadata?.[NAME] !== collection)
        throw new ChunkdError(
          'CONFLICT',
          `The Chroma collection '${name}' was not made by chunkd (its metadata has no '${NAME}'): write to another collection, or delete that one in Chroma.`,
        );
      const rows = docs.flatMap((d) => d.rows);
      const size = await this.batchSize();
      for (let at = 0; at < rows.length; at += size) {
        const batch = rows.slice(at, at + size);
        await target.upsert({
          ids: batch.map((r) => r.id),
          embeddings: batch.map((r) => Array.from(r.embedding)),
          documents: batch.map((r) => r.text),
          metadatas: batch.map(toMetadata),
        });
      }
      const written = new Set(rows.map((r) => r.id));
      const stale = (
        await this.idsOf(
          target,
          docs.map((d) => d.document),
        )
      ).filter((id) => !written.has(id));
      await this.deleteIds(target, stale);
    });
  }

  private async idsOf(target: Collection, documents: string[]): Promise<string[]> {
    const where = documents.length === 1 ? { document: documents[0]! } : { document: { $in: documents } };
    return (await target.get({ where, include: [] })).ids;
  }

  private async deleteIds(target: Collection, ids: string[]): Promise<void> {
    const size = await this.batchSize();
    for (let at = 0; at < ids.length; at += size) await target.delete({ ids: ids.slice(at, at + size) });
  }

  delete(collection: string, document: string): Promise<number> {
    return this.queue.run(collection, async () => {
      const target = await this.find(collection);
      if (!target) return 0;
      const ids = await this.idsOf(target, [document]);
      await this.deleteIds(target, ids);
      return ids.length;
    });
  }

  drop(collection: string): Promise<void> {
    return this.queue.run(collection, async () => {
      // Only a collection chunkd made under this name (find checks its metadata).
      if (await this.find(collection)) await this.client.deleteCollection({ name: chromaName(collection) });
    });
  }

  async search(collection: string, q: StoreQuery): Promise<StoreHit[]> {
    if (!q.embedding)
      throw new ChunkdError('BAD_REQUEST', 'A chroma store searches by embedding only: send embedding, or search a collection that records its model.');
    const target = await this.find(collection);
    if (!target) return [];
    const found = await target.query({
      queryEmbeddings: [q.embedding],
      nResults: q.k,
      ...(whereOf(q.filter) ? { where: whereOf(q.filter)! } : {}),
      include: ['documents', 'metadatas', 'distances'],
    });
    const ids = found.ids[0] ?? [];
    return ids.map((id, i) => toHit(id, found.documents[0]?.[i] ?? null, found.metadatas[0]?.[i] ?? null, found.distances[0]?.[i] ?? null));
  }

  async close(): Promise<void> {
    // HTTP only: no connection to end; queued writes finish on their own.
  }
}
