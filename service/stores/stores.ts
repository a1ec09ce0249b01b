import { MAX_K } from '../../wire/stores.js';
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError, validationError } from '../../kernel/errors.js';
import { storeChunkId, type CollectionInfo, type HandshakeImpl, type StoreHit, type StoreRow } from '../../kernel/handshake.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { inline, Runner } from '../../kernel/engine/index.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import { readConnections, redact, type Connection } from './connections.js';
import { CollectionName, MAX_DOCUMENT_ID_LENGTH } from '../../kernel/handshake.js';
import { flagOf, settingText } from '../settings.js';

/** The collection-name rule of the handshake contract (kernel/handshake.ts), declared once. */
const COLLECTION = new RegExp((CollectionName as unknown as { pattern: string }).pattern);

/** What a store logs: the server's logger fits. */
export interface StoreLogger {
  log(level: 'debug' | 'info' | 'warning' | 'error', msg: string, fields?: Record<string, unknown>): void;
}

export interface StoreListing {
  name: string;
  handshake: string;
  /** Its rows are on this machine (an embedded database under a local path): other replicas cannot reach them. */
  local: boolean;
  collections: CollectionInfo[];
  /** Set when the store did not answer: why, with no URL or secret. */
  error?: string;
}

export interface SearchRequest {
  collection: string;
  /** Embedded with the collection's recorded model (or searched as text by a store without vectors). */
  query?: string;
  embedding?: number[];
  k: number;
  filter?: { document?: string };
}

export interface StoresOptions {
  /** The server runs as one replica of several (--database-url): a local store is refused writes. */
  replicaSet: boolean;
  logger?: StoreLogger;
  /** Runs a query's embedding (the embeddings refinery), placed as the server places work; by default on this thread. */
  runner?: Runner;
}

/** Embeddings of one query, on this thread: no output cap applies to them. */
const HERE = new Runner(inline, { maxOutputBytes: Infinity, maxDocumentOutputBytes: Infinity, maxChunks: Infinity });

interface Open {
  connection: Connection;
  plugin: Plugin;
  local: boolean;
  impl?: Promise<HandshakeImpl>;
}

/**
 * The store connections of this server, opened on first use (a store that is down does not stop
 * start-up; its requests answer 503 until it is back). Every check a store request needs is here,
 * so the HTTP routes, pipelines' write steps, jobs and the CLI share them.
 */
export class Stores {
  private readonly open = new Map<string, Open>();
  /**
   * Model and dimension of the collections this process searched, by store and collection: a search
   * needs them, not a listing of every collection (which counts each one's rows). Forgotten when
   * this process writes or drops the collection; another process's drop shows as no hits.
   */
  private readonly known = new Map<string, CollectionInfo>();

  constructor(
    private readonly registry: Registry,
    connections: readonly Connection[],
    private readonly options: StoresOptions,
  ) {
    for (const connection of connections) {
      const plugin = registry.get('handshake', connection.handshake);
      this.open.set(connection.name, { connection, plugin, local: plugin.manifest.local?.(connection.config) ?? false });
    }
  }

  /** Stores from the settings (`--stores`, or the default under the data directory); a bad entry throws StoresConfigError. */
  static fromSettings(
    registry: Registry,
    settings: { stores: string; dataDir: string; databaseUrl: string },
    logger?: StoreLogger,
    env: NodeJS.ProcessEnv = process.env,
    runner?: Runner,
  ): Stores {
    const stores = new Stores(registry, readConnections(settings.stores, settings.dataDir, registry, env), {
      replicaSet: settings.databaseUrl !== '',
      logger,
      ...(runner ? { runner } : {}),
    });
    for (const warning of stores.warnings()) logger?.log('warning', warning);
    return stores;
  }

  /** What start-up should say: each local store that a replica set will refuse writes to. */
  warnings(): string[] {
    if (!this.options.replicaSet) return [];
    return [...this.open.values()].filter((o) => o.local).map((o) => localMessage(o.connection.name));
  }

  names(): string[] {
    return [...this.open.keys()];
  }

  /** The handshake of a connection (a flat write step shows it in place of the connection). */
  handshakeOf(store: string): string | undefined {
    return this.open.get(store)?.connection.handshake;
  }

  /** The first connection of a handshake (Chonkie's flat write step names a handshake, not a connection). */
  byHandshake(handshake: string): string | undefined {
    return [...this.open.values()].find((o) => o.connection.handshake === handshake)?.connection.name;
  }

  async list(): Promise<StoreListing[]> {
    return Promise.all(
      [...this.open.values()].map(async (o) => {
        const base = { name: o.connection.name, handshake: o.connection.handshake, local: o.local };
        try {
          return { ...base, collections: await this.call(o, (impl) => impl.collections()) };
        } catch (e) {
          return { ...base, collections: [], error: isChunkdError(e) ? e.message : String(e) };
        }
      }),
    );
  }

  /** A collection's count, model and dimension; undefined when it does not exist. */
  async collection(store: string, collection: string): Promise<CollectionInfo | undefined> {
    const o = this.get(store);
    checkCollection(collection);
    return (await this.call(o, (impl) => impl.collections())).find((c) => c.name === collection);
  }

  /** Replace `document`'s chunks in the collection; the chunks carry embeddings of `model`. */
  async write(store: string, collection: string, document: string, chunks: readonly Chunk[], model: string): Promise<void> {
    await this.writeMany(store, collection, [{ document, chunks }], model);
  }

  /** Many documents in one batch (jobs), each replaced. */
  async writeMany(store: string, collection: string, docs: readonly { document: string; chunks: readonly Chunk[] }[], model: string): Promise<void> {
    const o = this.writable(store);
    checkCollection(collection);
    checkDistinct(docs.map((d) => d.document));
    const batch = docs.map(({ document, chunks }) => ({ document: checkDocument(document), rows: chunks.map((c) => toRow(document, c)) }));
    const dimension = dimensionOf(docs.flatMap((d) => d.chunks));
    const most = o.plugin.manifest.maxDimensions;
    if (dimension !== undefined && most !== undefined && dimension > most)
      throw validationError(
        ['chunks', 0, 'embedding'],
        `the embeddings have ${dimension} dimensions; the store '${o.connection.name}' (${o.connection.handshake}) keeps vectors of at most ${most}: embed with a model of fewer dimensions, or write to another store.`,
      );
    let meta = { model, dimension: dimension ?? 0 };
    if (dimension === undefined) {
      // Documents with no chunks (blank texts): their old rows go; a collection that does not exist stays so.
      const info = (await this.call(o, (impl) => impl.collections())).find((c) => c.name === collection);
      if (!info) return;
      meta = { model: info.model ?? model, dimension: info.dimension ?? 0 };
    } else await this.checkModel(o, collection, model, dimension);
    this.known.delete(key(store, collection));
    await this.call(o, (impl) =>
      impl.writeMany ? impl.writeMany(collection, batch, meta) : sequential(batch, (d) => impl.write(collection, d.document, d.rows, meta)),
    );
  }

  async search(store: string, req: SearchRequest): Promise<StoreHit[]> {
    const o = this.get(store);
    checkCollection(req.collection);
    if (!Number.isInteger(req.k) || req.k < 1 || req.k > MAX_K)
      throw validationError(['body', 'k'], `k must be a whole number from 1 to ${MAX_K} (got ${req.k})`);
    if ((req.query === undefined) === (req.embedding === undefined))
      throw validationError(['body', 'query'], 'give either query (a text) or embedding (a vector), not both or neither');
    const info = this.known.get(key(store, req.collection)) ?? (await this.existing(o, req.collection));
    if (info.model) this.known.set(key(store, req.collection), info);
    const caps = o.plugin.manifest.capabilities!;
    const filter = req.filter?.document === undefined ? undefined : { document: checkDocument(req.filter.document) };
    if (req.embedding) {
      if (!caps.vector)
        throw new ChunkdError(
          'BAD_REQUEST',
          `The store '${o.connection.name}' (${o.connection.handshake}) searches by text only: send query instead of embedding.`,
        );
      const problem = vectorProblem(req.embedding);
      if (problem) throw validationError(['body', 'embedding'], `embedding ${problem}`);
      if (req.embedding.length !== info.dimension)
        throw validationError(
          ['body', 'embedding'],
          `embedding has ${req.embedding.length} dimensions; the collection '${req.collection}' holds vectors of ${info.dimension} dimensions (model ${info.model}).`,
        );
      return this.call(o, (impl) => impl.search(req.collection, { embedding: req.embedding, k: req.k, filter }));
    }
    if (caps.vector && info.model) {
      const embedding = await this.embed(info.model, req.query!);
      if (vectorProblem(embedding))
        throw validationError(
          ['body', 'query'],
          `the query's embedding (model ${info.model}) ${vectorProblem(embedding)}: the model knows none of its words, and such a vector matches nothing; rephrase the query.`,
        );
      if (embedding.length !== info.dimension)
        throw new ChunkdError(
          'CONFLICT',
          `The model '${info.model}' now gives vectors of ${embedding.length} dimensions, but the collection '${req.collection}' holds ${info.dimension}: re-ingest the collection, or restore the model it was written with.`,
        );
      return this.call(o, (impl) => impl.search(req.collection, { embedding, k: req.k, filter }));
    }
    if (!caps.text)
      throw new ChunkdError(
        'BAD_REQUEST',
        `The store '${o.connection.name}' (${o.connection.handshake}) cannot search text and the collection records no model to embed the query with: send embedding.`,
      );
    return this.call(o, (impl) => impl.search(req.collection, { text: req.query, k: req.k, filter }));
  }

  /** Remove a document's chunks; the number of rows removed. */
  async deleteDocument(store: string, collection: string, document: string): Promise<number> {
    const o = this.writable(store);
    checkCollection(collection);
    await this.existing(o, collection);
    return this.call(o, (impl) => impl.delete(collection, checkDocument(document)));
  }

  /**
   * Remove a collection whole (its rows and its recorded model) where the handshake can; else
   * delete `documents`, the ones the caller wrote, leaving the empty collection. For scratch
   * collections (evaluation through a store).
   */
  async dropCollection(store: string, collection: string, documents: readonly string[]): Promise<void> {
    const o = this.writable(store);
    checkCollection(collection);
    this.known.delete(key(store, collection));
    const dropped = await this.call(o, async (impl) => {
      if (!impl.drop) return false;
      await impl.drop(collection);
      return true;
    });
    if (dropped) return;
    for (const document of documents) await this.call(o, (impl) => impl.delete(collection, checkDocument(document)));
  }

  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map(async (o) => (await o.impl?.catch(() => undefined))?.close()));
  }

  private get(store: string): Open {
    const o = this.open.get(store);
    if (!o)
      throw new ChunkdError(
        'NOT_FOUND',
        `${unknownNameMessage('store', store, this.names())} This server's stores: ${this.names().join(', ')} (GET /v1/stores).`,
      );
    return o;
  }

  /** Refuse, before any work, what a write to `store` would refuse: an unknown store, or in a replica set one on this replica's disk. */
  checkWritable(store: string): void {
    this.writable(store);
  }

  /** The search capabilities of a connection's handshake (a store retriever needs vector search). */
  capabilities(store: string): { vector: boolean; text: boolean } {
    return this.get(store).plugin.manifest.capabilities ?? { vector: false, text: false };
  }

  /** A store this process may write: in a replica set, not one on this replica's disk. */
  private writable(store: string): Open {
    const o = this.get(store);
    if (this.options.replicaSet && o.local) throw new ChunkdError('CONFLICT', localMessage(store));
    return o;
  }

  private async existing(o: Open, collection: string): Promise<CollectionInfo> {
    const info = (await this.call(o, (impl) => impl.collections())).find((c) => c.name === collection);
    if (!info)
      throw new ChunkdError(
        'NOT_FOUND',
        `The store '${o.connection.name}' has no collection '${collection}': write documents to it first (GET /v1/stores lists the collections).`,
      );
    return info;
  }

  /** A collection keeps the model and dimension of its first write: another is a 409 naming both. */
  private async checkModel(o: Open, collection: string, model: string, dimension: number): Promise<void> {
    const info = (await this.call(o, (impl) => impl.collections())).find((c) => c.name === collection);
    if (!info?.model) return;
    if (info.model !== model)
      throw new ChunkdError(
        'CONFLICT',
        `The collection '${collection}' of store '${o.connection.name}' holds vectors of the model '${info.model}'; these chunks were embedded with '${model}'. Embed with '${info.model}', or write to another collection.`,
      );
    if (info.dimension !== dimension)
      throw new ChunkdError(
        'CONFLICT',
        `The collection '${collection}' of store '${o.connection.name}' holds vectors of ${info.dimension} dimensions (model '${info.model}'); these have ${dimension}.`,
      );
  }

  /** The query's vector, by the embeddings refinery through the runner: the same path, loader, cache and providers as the chunks' vectors. */
  private async embed(model: string, text: string): Promise<number[]> {
    const plugin = this.registry.get('refinery', 'embeddings');
    const config = plugin.validateConfig({ embedding_model: model }, ['collection model']);
    const [vector] = await (this.options.runner ?? HERE).embed({ plugin, config }, [text]);
    return Array.from(vector!);
  }

  /** Run one call on a store's connection (opened on first use); its failures become a 503 that names the store, never its URL. */
  private async call<T>(o: Open, work: (impl: HandshakeImpl) => Promise<T>): Promise<T> {
    if (!o.impl) {
      o.impl = o.plugin.connect(o.connection.config, ['stores', o.connection.name]);
      o.impl.catch(() => (o.impl = undefined)); // retried on the next call
    }
    try {
      return await work(await o.impl);
    } catch (e) {
      if (isChunkdError(e)) throw e;
      const { name, handshake } = o.connection;
      this.options.logger?.log('error', 'store call failed', { store: name, handshake, error: redact(String((e as Error)?.stack ?? e), o.connection.secrets) });
      throw new ChunkdError('UNAVAILABLE', `The store '${name}' (${handshake}) did not complete the call: retry later; the server log has the details.`, {
        'Retry-After': '5',
      });
    }
  }
}

const localMessage = (store: string) =>
  `The store '${store}' is on this replica's disk (an embedded database under its data directory), and this server runs as one of several replicas (${flagOf('databaseUrl')}): writing to it would split its collections across replicas. Name a store every replica reaches in ${settingText('stores')}: pgvector, or lancedb on an object-store URI.`;

const key = (store: string, collection: string) => `${store}\u0000${collection}`;

function checkCollection(collection: string): void {
  if (typeof collection !== 'string' || !COLLECTION.test(collection))
    throw validationError(['body', 'collection'], 'collection must be letters, digits, _ and - (at most 63), starting with a letter or digit');
}

function checkDocument(document: string): string {
  if (typeof document !== 'string' || document.length === 0 || document.length > MAX_DOCUMENT_ID_LENGTH)
    throw validationError(['body', 'document'], `document must be a non-empty string of at most ${MAX_DOCUMENT_ID_LENGTH} characters`);
  const problem = textProblem(document);
  if (problem) throw validationError(['body', 'document'], `the document id holds ${problem}, which a store cannot keep: ${FIX_TEXT}`, 'string_unicode');
  return document;
}

/** Two documents of one write under one id: only the last would be kept. */
function checkDistinct(documents: readonly string[]): void {
  const seen = new Map<string, number>();
  for (const [i, document] of documents.entries()) {
    const first = seen.get(document);
    if (first !== undefined)
      throw validationError(
        ['body', 'document', i],
        `documents ${first} and ${i} have one id ('${document.slice(0, 100)}'): a store keeps one document per id, so one would replace the other. Give each document its own id.`,
      );
    seen.set(document, i);
  }
}

const FIX_TEXT = 'remove it, or send well-formed Unicode (a lone UTF-16 surrogate is half of a character).';

/** What a store cannot keep in a string (PostgreSQL text holds no U+0000; UTF-8 has no lone surrogate); undefined when it can. */
function textProblem(text: string): string | undefined {
  if (!text.isWellFormed()) return 'a lone UTF-16 surrogate';
  if (text.includes('\u0000')) return 'a NUL character (U+0000)';
  return undefined;
}

/** A string (or key) of a chunk's metadata that a store cannot keep: where, and what. */
function metadataProblem(metadata: unknown): { at: (string | number)[]; problem: string } | undefined {
  const stack: { value: unknown; at: (string | number)[] }[] = [{ value: metadata, at: [] }];
  while (stack.length) {
    const { value, at } = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { at, problem };
    } else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        const problem = textProblem(key);
        if (problem) return { at: [...at, key], problem: `${problem} in a key` };
        stack.push({ value: inner, at: [...at, Array.isArray(value) ? Number(key) : key] });
      }
    }
  }
  return undefined;
}

/**
 * What makes a vector one a store cannot search: a number that is not finite (NaN, ±Infinity), or
 * every number zero (no direction: its cosine with anything is undefined, and LanceDB then answers
 * no hit for any query of the collection). Undefined for a good vector.
 */
export function vectorProblem(vector: ArrayLike<unknown>): string | undefined {
  let zero = true;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return `holds ${typeof x === 'number' ? x : JSON.stringify(x)} at ${i}: every number must be finite`;
    if (x !== 0) zero = false;
  }
  return zero ? ZERO : undefined;
}

const ZERO = 'is all zeros';

/** The dimension every chunk's embedding shares; a chunk without one is a 422 that says to embed. */
function dimensionOf(chunks: readonly Chunk[]): number | undefined {
  let dimension: number | undefined;
  for (const [i, c] of chunks.entries()) {
    if (!Array.isArray(c.embedding) || c.embedding.length === 0)
      throw validationError(['chunks', i, 'embedding'], 'a chunk to store needs an embedding: put an embeddings step before the write step');
    if (dimension !== undefined && c.embedding.length !== dimension)
      throw validationError(['chunks', i, 'embedding'], `embeddings differ in length (${dimension} and ${c.embedding.length}): one model embeds a collection`);
    dimension = c.embedding.length;
    // All zeros is left to the store on write (the built-in model gives it for a chunk none of whose words it knows; refusing the document would lose it): NaN and infinities are refused.
    const vector = vectorProblem(c.embedding);
    if (vector && vector !== ZERO)
      throw validationError(
        ['chunks', i, 'embedding'],
        `chunk ${i}'s embedding ${vector} ('${c.text.slice(0, 40)}…'): a store cannot search such a vector, and LanceDB would answer no hit for any query of the collection. A zero vector is a text the model knows none of the words of: use another model, or leave such chunks out.`,
      );
    const text = textProblem(c.text);
    if (text) throw validationError(['chunks', i, 'text'], `chunk ${i}'s text holds ${text}, which a store cannot keep: ${FIX_TEXT}`, 'string_unicode');
    const meta = metadataProblem(c.metadata);
    if (meta)
      throw validationError(
        ['chunks', i, 'metadata', ...meta.at],
        `chunk ${i}'s metadata holds ${meta.problem}, which a store cannot keep: ${FIX_TEXT}`,
        'string_unicode',
      );
  }
  return dimension;
}

function toRow(document: string, c: Chunk): StoreRow {
  // context (overlap, table headers) is kept with the chunk: a reader of a hit wants it.
  const metadata = { ...(c.metadata ?? {}), ...(c.context === undefined ? {} : { context: c.context }) };
  return {
    id: storeChunkId(document, c),
    document,
    text: c.text,
    start_index: c.start_index,
    end_index: c.end_index,
    token_count: c.token_count,
    metadata,
    embedding: c.embedding!,
  };
}

async function sequential<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (const item of items) await each(item);
}
