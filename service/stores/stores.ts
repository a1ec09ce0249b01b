import { MAX_DOCUMENTS_PAGE, MAX_K, type StoreInfo } from '../../wire/stores.js';
import { checkFilterKeys, SearchFilter } from '../../wire/metadata.js';
import { compileValidator } from '../../kernel/validation.js';
import { matchesFilter, type StoreFilter } from '../../kernel/store-filter.js';
import { setImmediate as tick } from 'node:timers/promises';
import { ChunkdError, isChunkdError, validationError } from '../../kernel/errors.js';
import {
  storeChunkId,
  type ChunkToStore,
  type CollectionInfo,
  type DocumentInfo,
  type HandshakeImpl,
  type StoreHit,
  type StoreRow,
} from '../../kernel/handshake.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { inline, Runner } from '../../kernel/engine/index.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import { readConnections, redact, type Connection } from './connections.js';
import { CollectionName, MAX_DOCUMENT_ID_LENGTH, STORE_ROWS_PER_TURN } from '../../kernel/handshake.js';
import { collectWhenIdle } from '../../kernel/idle-collect.js';
import { flagOf, settingPairText, settingText, type Settings } from '../settings.js';
import { deadline, storeReason, StoreTimeout, storeUnreachable } from './reach.js';
import { SearchGate } from './search-gate.js';
import { defaultModeFor, isSearchMode, modesOf, SEARCH_MODES, type SearchMode } from '../../kernel/search-mode.js';
import { fuse, fusionFor } from '../../kernel/fusion.js';
import { indexText } from '../../kernel/index-text.js';

/** The collection-name rule of the handshake contract (kernel/handshake.ts), declared once. */
const COLLECTION = new RegExp((CollectionName as unknown as { pattern: string }).pattern);

/** What a store logs: the server's logger fits. */
export interface StoreLogger {
  log(level: 'debug' | 'info' | 'warning' | 'error', msg: string, fields?: Record<string, unknown>): void;
}

/** A store as listed: the wire's shape (wire/stores.ts StoreInfo), declared once. */
export type StoreListing = StoreInfo;

export interface SearchRequest {
  collection: string;
  /** Embedded with the collection's recorded model (or searched as text by a store without vectors). */
  query?: string;
  embedding?: number[];
  k: number;
  filter?: StoreFilter;
  /** How to search (kernel/search-mode.ts); absent: the collection's default mode. Checked here: a caller may pass any string. */
  mode?: SearchMode | (string & {});
}

/** A document's metadata beyond its chunks' own: its name, and the user's keys (wire/metadata.ts), on every row it writes. */
export type DocumentMeta = Record<string, unknown>;

/** A document's chunks to replace its rows with, and what goes on every row of it. */
export interface DocumentToStore {
  document: string;
  chunks: readonly ChunkToStore[];
  meta?: DocumentMeta;
}

/** One page of a collection's documents. */
export interface DocumentPage {
  documents: DocumentInfo[];
  next_cursor: string | null;
}

const checkFilter = compileValidator<StoreFilter>(SearchFilter);

export interface StoresOptions {
  /** The server runs as one replica of several (--database-url): a local store is refused writes. */
  replicaSet: boolean;
  logger?: StoreLogger;
  /** Runs a query's embedding (the embeddings refinery), placed as the server places work; by default on this thread. */
  runner?: Runner;
  /** --store-connect-timeout-ms: opening a connection, and a listing (GET /v1/stores). */
  connectTimeoutMs?: number;
  /** --store-query-timeout-ms: one call on an open connection. */
  queryTimeoutMs?: number;
  /** --max-concurrent-searches. */
  maxConcurrentSearches?: number;
  /** --max-collections-per-store. */
  maxCollections?: number;
}

/** The settings the stores read. */
export type StoresSettings = Pick<Settings, 'stores' | 'dataDir' | 'databaseUrl'> &
  Partial<Pick<Settings, 'storeConnectTimeoutMs' | 'storeQueryTimeoutMs' | 'maxConcurrentSearches' | 'maxCollectionsPerStore'>>;

/**
 * A store call that did not complete: the 503 a client sees (naming the store, never its URL), and
 * for a job's wait whether the store could be reached at all and, when it answered, its reason.
 */
export class StoreCallError extends ChunkdError {
  constructor(
    readonly store: string,
    message: string,
    /** Why it could not be reached (safe to show); undefined: it answered with an error of its own. */
    readonly unreachable: string | undefined,
    /** The store's own message, redacted (no secret, no URL), one line. */
    readonly reason: string,
  ) {
    super('UNAVAILABLE', message, { 'Retry-After': '5' });
  }
}

export const isStoreCallError = (e: unknown): e is StoreCallError => e instanceof StoreCallError;

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
  /** Collections each store held at its last listing, plus those this process made since (for --max-collections-per-store). */
  private readonly counts = new Map<string, number>();
  private readonly searches: SearchGate;

  constructor(
    private readonly registry: Registry,
    connections: readonly Connection[],
    private readonly options: StoresOptions,
  ) {
    for (const connection of connections) {
      const plugin = registry.get('handshake', connection.handshake);
      this.open.set(connection.name, { connection, plugin, local: plugin.manifest.local?.(connection.config) ?? false });
    }
    this.searches = new SearchGate(options.maxConcurrentSearches ?? Infinity);
  }

  /** Stores from the settings (`--stores`, or the default under the data directory); a bad entry throws StoresConfigError. */
  static fromSettings(registry: Registry, settings: StoresSettings, logger?: StoreLogger, env: NodeJS.ProcessEnv = process.env, runner?: Runner): Stores {
    const stores = new Stores(registry, readConnections(settings.stores, settings.dataDir, registry, env), {
      replicaSet: settings.databaseUrl !== '',
      logger,
      connectTimeoutMs: settings.storeConnectTimeoutMs,
      queryTimeoutMs: settings.storeQueryTimeoutMs,
      maxConcurrentSearches: settings.maxConcurrentSearches,
      maxCollections: settings.maxCollectionsPerStore,
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
        const modes = this.modes(o.connection.name);
        const base = { name: o.connection.name, handshake: o.connection.handshake, local: o.local, modes };
        try {
          // A listing is quick or the store is marked: one store that hangs never holds up the answer.
          const collections = await this.call(o, (impl) => impl.collections(), this.options.connectTimeoutMs);
          this.remember(o, collections);
          return { ...base, collections: collections.map((c) => ({ ...c, default_mode: defaultModeFor(c.model, modes) ?? null })) };
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
  async write(store: string, collection: string, document: string, chunks: readonly ChunkToStore[], model: string, meta?: DocumentMeta): Promise<void> {
    await this.writeMany(store, collection, [{ document, chunks, ...(meta ? { meta } : {}) }], model);
  }

  /** Many documents in one batch (jobs), each replaced; `meta` (its name, the user's keys) goes on every row of its document. */
  async writeMany(store: string, collection: string, docs: readonly DocumentToStore[], model: string): Promise<void> {
    try {
      await this.replace(store, collection, docs, model);
    } finally {
      // Its rows, made here as objects, are garbage now: a large batch's are collected once this thread idles.
      if (docs.reduce((n, d) => n + d.chunks.length, 0) >= LARGE_WRITE_CHUNKS) collectWhenIdle();
    }
  }

  private async replace(store: string, collection: string, docs: readonly DocumentToStore[], model: string): Promise<void> {
    const o = this.writable(store);
    checkCollection(collection);
    checkDistinct(docs.map((d) => d.document));
    const { batch, dimension } = await toRows(docs);
    const most = o.plugin.manifest.maxDimensions;
    if (dimension !== undefined && most !== undefined && dimension > most)
      throw validationError(
        ['chunks', 0, 'embedding'],
        `the embeddings have ${dimension} dimensions; the store '${o.connection.name}' (${o.connection.handshake}) keeps vectors of at most ${most}: embed with a model of fewer dimensions, or write to another store.`,
      );
    let meta = { model, dimension: dimension ?? 0 };
    const info = await this.meta(o, collection);
    if (dimension === undefined) {
      // Documents with no chunks (blank texts): their old rows go; a collection that does not exist stays so.
      if (!info) return;
      meta = { model: info.model ?? model, dimension: info.dimension ?? 0 };
    } else if (info) this.checkModel(o, info, model, dimension);
    else this.checkRoom(o);
    await this.call(
      o,
      (impl) => (impl.writeMany ? impl.writeMany(collection, batch, meta) : sequential(batch, (d) => impl.write(collection, d.document, d.rows, meta))),
      writeDeadline(
        this.options.queryTimeoutMs ?? 0,
        batch.reduce((n, d) => n + d.rows.length, 0),
      ),
    );
    if (!info) {
      this.known.set(key(store, collection), { name: collection, count: 0, model: meta.model, dimension: meta.dimension });
      this.counts.set(store, (this.counts.get(store) ?? 0) + 1);
    }
  }

  /** The model a collection's vectors were written with; null for a collection not yet written (or a store that records none). */
  async model(store: string, collection: string): Promise<string | null> {
    const o = this.get(store);
    checkCollection(collection);
    return (await this.meta(o, collection))?.model ?? null;
  }

  async search(store: string, req: SearchRequest): Promise<StoreHit[]> {
    return (await this.searchWithMode(store, req)).hits;
  }

  /**
   * A search and the mode it ran (kernel/search-mode.ts): the one asked, else the collection's
   * default for its model (defaultModeFor), else `vector` for a query given as an embedding. Both
   * `query` and `embedding` may be given by a caller that embedded the query already (an
   * evaluation): the embedding is then the query's vector. `hybrid` fuses the store's text and
   * vector hits here, with the collection's model's rule (kernel/fusion.ts fusionFor), the rule
   * evaluation's `hybrid` uses too.
   */
  async searchWithMode(store: string, req: SearchRequest): Promise<{ mode: SearchMode; hits: StoreHit[] }> {
    const o = this.get(store);
    checkCollection(req.collection);
    if (!Number.isInteger(req.k) || req.k < 1 || req.k > MAX_K)
      throw validationError(['body', 'k'], `k must be a whole number from 1 to ${MAX_K} (got ${req.k})`);
    if (req.query === undefined && req.embedding === undefined) throw validationError(['body', 'query'], 'give either query (a text) or embedding (a vector)');
    const modes = modesOf(o.plugin.manifest.capabilities!);
    if (req.mode !== undefined) checkMode(o, req.mode, modes);
    const info = await this.existing(o, req.collection);
    if (req.filter !== undefined) checkFilterKeys(req.filter, ['body', 'filter']);
    const filter = req.filter === undefined ? undefined : checkFilter(structuredClone(req.filter), ['body', 'filter']);
    // Every hit is checked against the filter too: a handshake that cannot push a metadata field down still answers only what holds.
    const kept = (hits: StoreHit[]) => (filter ? hits.filter((h) => matchesFilter(h, filter)) : hits);
    const mode = (req.mode as SearchMode | undefined) ?? (req.query === undefined ? 'vector' : defaultModeFor(info.model, modes));
    if (mode === undefined)
      throw new ChunkdError(
        'BAD_REQUEST',
        `The store '${o.connection.name}' (${o.connection.handshake}) cannot search text and the collection records no model to embed the query with: send embedding.`,
      );
    // an embedding sent to a store without vector search
    if (!modes.includes(mode)) checkMode(o, mode, modes);
    if (mode !== 'vector' && req.query === undefined)
      throw validationError(['body', 'query'], `the ${mode} mode searches by the query's words: send query (a text), or mode "vector" with an embedding`);
    const embedding = mode === 'text' ? undefined : await this.queryVector(o, info, req, mode === 'hybrid');
    const k = req.k;
    if (mode === 'text')
      return { mode, hits: kept(await this.searches.run(() => this.call(o, (impl) => impl.search(req.collection, { text: req.query, k, filter })))) };
    if (mode === 'vector')
      return { mode, hits: kept(await this.searches.run(() => this.call(o, (impl) => impl.search(req.collection, { embedding, k, filter })))) };
    // hybrid: each list read to the rule's depth (or k if more), fused once here for every handshake
    const rule = fusionFor(info.model);
    const depth = Math.min(MAX_K, Math.max(rule.depth, k));
    const [text, vector] = await this.searches.run(() =>
      this.call(o, (impl) =>
        Promise.all([
          impl.search(req.collection, { text: req.query, k: depth, filter }),
          embedding ? impl.search(req.collection, { embedding, k: depth, filter }) : [],
        ]),
      ),
    );
    const byId = new Map<string, StoreHit>();
    for (const h of [...vector, ...text]) byId.set(h.id, h);
    return { mode, hits: fuse(kept(text), kept(vector), rule, k).map((f) => ({ ...byId.get(f.id)!, score: f.score })) };
  }

  /**
   * The query's vector: the one given (of the collection's dimension), else the query embedded with
   * the collection's model. A query the model knows no word of has no usable vector: a 422, or
   * (`textToo`: hybrid, whose text list still answers) none.
   */
  private async queryVector(o: Open, info: CollectionInfo, req: SearchRequest, textToo = false): Promise<number[] | undefined> {
    if (req.embedding) {
      const problem = vectorProblem(req.embedding);
      if (problem) throw validationError(['body', 'embedding'], `embedding ${problem}`);
      if (req.embedding.length !== info.dimension)
        throw validationError(
          ['body', 'embedding'],
          `embedding has ${req.embedding.length} dimensions; the collection '${req.collection}' holds vectors of ${info.dimension} dimensions (model ${info.model}).`,
        );
      return req.embedding;
    }
    if (!info.model)
      throw new ChunkdError(
        'BAD_REQUEST',
        `The collection '${req.collection}' of store '${o.connection.name}' records no model to embed the query with: send embedding, or search with mode "text".`,
      );
    const embedding = await this.embed(info.model, req.query!);
    const problem = vectorProblem(embedding);
    if (problem && textToo) return undefined;
    if (problem)
      throw validationError(
        ['body', 'query'],
        `the query's embedding (model ${info.model}) ${problem}: the model knows none of its words, and such a vector matches nothing; rephrase the query, or search with mode "text".`,
      );
    if (embedding.length !== info.dimension)
      throw new ChunkdError(
        'CONFLICT',
        `The model '${info.model}' now gives vectors of ${embedding.length} dimensions, but the collection '${req.collection}' holds ${info.dimension}: re-ingest the collection, or restore the model it was written with.`,
      );
    return embedding;
  }

  /** The modes a connection's handshake serves (kernel/search-mode.ts modesOf). */
  modes(store: string): SearchMode[] {
    return modesOf(this.get(store).plugin.manifest.capabilities ?? { vector: false, text: false });
  }

  /** Remove a document's chunks; the number of rows removed. */
  async deleteDocument(store: string, collection: string, document: string): Promise<number> {
    const o = this.writable(store);
    checkCollection(collection);
    await this.existing(o, collection);
    return this.call(o, (impl) => impl.delete(collection, checkDocument(document)));
  }

  /** Remove a collection whole, its rows and its recorded model (DELETE /v1/stores/{name}/collections/{c}): 404 when it does not exist. */
  async deleteCollection(store: string, collection: string): Promise<void> {
    const o = this.writable(store);
    checkCollection(collection);
    await this.existing(o, collection);
    if (!(await this.call(o, async (impl) => impl.drop !== undefined)))
      throw new ChunkdError(
        'BAD_REQUEST',
        `The store '${store}' (${o.connection.handshake}) cannot drop a collection: delete its documents one by one (DELETE /v1/stores/${store}/collections/${collection}/documents/{id}).`,
      );
    this.known.delete(key(store, collection));
    await this.call(o, (impl) => impl.drop!(collection));
  }

  /** A page of a collection's documents, by id, with their names and chunk counts; `cursor` is the last page's next_cursor. */
  async documents(store: string, collection: string, page: { cursor?: string; limit: number }): Promise<DocumentPage> {
    const o = this.get(store);
    checkCollection(collection);
    if (!Number.isInteger(page.limit) || page.limit < 1 || page.limit > MAX_DOCUMENTS_PAGE)
      throw validationError(['query', 'limit'], `limit must be a whole number from 1 to ${MAX_DOCUMENTS_PAGE} (got ${page.limit})`);
    await this.existing(o, collection);
    const documents = await this.call(o, async (impl) => {
      if (!impl.documents) throw new ChunkdError('BAD_REQUEST', `The store '${store}' (${o.connection.handshake}) cannot list a collection's documents.`);
      // One more than asked: whether there is a next page.
      return impl.documents(collection, { ...(page.cursor ? { after: page.cursor } : {}), limit: page.limit + 1 });
    });
    const more = documents.length > page.limit;
    const shown = documents.slice(0, page.limit);
    return { documents: shown, next_cursor: more ? shown.at(-1)!.document : null };
  }

  /** Fold the collection's writes into its indexes now (HandshakeImpl.settle); a store without the call has nothing to do. */
  async settle(store: string, collection: string): Promise<void> {
    const o = this.get(store);
    checkCollection(collection);
    await this.call(o, async (impl) => impl.settle?.(collection));
  }

  /**
   * Remove a collection whole (its rows and its recorded model) where the handshake can; else
   * delete `documents`, the ones the caller wrote, leaving the empty collection. For scratch
   * collections (evaluation through a store).
   */
  async dropCollection(store: string, collection: string, documents: readonly string[]): Promise<void> {
    const o = this.writable(store);
    checkCollection(collection);
    const forget = () => {
      if (this.known.delete(key(store, collection))) this.counts.set(store, Math.max(0, (this.counts.get(store) ?? 1) - 1));
    };
    forget();
    const dropped = await this.call(o, async (impl) => {
      if (!impl.drop) return false;
      await impl.drop(collection);
      return true;
    }).finally(forget);
    if (dropped) return;
    for (const document of documents) await this.call(o, (impl) => impl.delete(collection, checkDocument(document)));
  }

  /** Every store connection opened and warmed (HandshakeImpl.warm), in the background of a server that has started; a store that fails is left to its first use. */
  async warm(): Promise<void> {
    await Promise.allSettled([...this.open.values()].map(async (o) => (await this.connection(o, this.options.connectTimeoutMs ?? Infinity)).warm?.()));
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
    const info = await this.meta(o, collection);
    if (!info)
      throw new ChunkdError(
        'NOT_FOUND',
        `The store '${o.connection.name}' has no collection '${collection}': write documents to it first (GET /v1/stores lists the collections).`,
      );
    return info;
  }

  /**
   * A collection's model and dimension (they never change while it exists): kept from the last
   * listing or this process's writes, so a write, search or delete does not list every collection
   * (which counts each one's rows). A collection not known is looked for in a fresh listing.
   * Forgotten when this process drops the collection; another process's drop shows as no hits.
   */
  private async meta(o: Open, collection: string): Promise<CollectionInfo | undefined> {
    const known = this.known.get(key(o.connection.name, collection));
    if (known) return known;
    const listed = await this.call(o, (impl) => impl.collections());
    this.remember(o, listed);
    return listed.find((c) => c.name === collection);
  }

  private remember(o: Open, listed: readonly CollectionInfo[]): void {
    this.counts.set(o.connection.name, listed.length);
    for (const c of listed) if (c.model) this.known.set(key(o.connection.name, c.name), { ...c });
  }

  /** A new collection fits --max-collections-per-store, or a 507 naming the store. */
  private checkRoom(o: Open): void {
    const max = this.options.maxCollections ?? Infinity;
    const held = this.counts.get(o.connection.name) ?? 0;
    if (held >= max)
      throw new ChunkdError(
        'INSUFFICIENT_STORAGE',
        `The store '${o.connection.name}' holds ${held} collections, the most one store may hold (${settingPairText('maxCollectionsPerStore')}): write to an existing collection (GET /v1/stores lists them), drop collections you no longer need, or raise the limit.`,
      );
  }

  /** A collection keeps the model and dimension of its first write: another is a 409 naming both. */
  private checkModel(o: Open, info: CollectionInfo, model: string, dimension: number): void {
    const collection = info.name;
    if (!info.model) return;
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

  /**
   * Run one call on a store's connection (opened on first use, within --store-connect-timeout-ms;
   * the call within `ms`, by default --store-query-timeout-ms); its failures become a 503 that
   * names the store, never its URL. A call past its deadline is abandoned: nothing waits on a
   * store that hangs.
   */
  private async call<T>(o: Open, work: (impl: HandshakeImpl) => Promise<T>, ms = this.options.queryTimeoutMs ?? 0): Promise<T> {
    const started = Date.now();
    try {
      const impl = await this.connection(o, Math.min(ms || Infinity, this.options.connectTimeoutMs ?? Infinity));
      const left = ms ? Math.max(1, ms - (Date.now() - started)) : 0;
      return await deadline(work(impl), left);
    } catch (e) {
      if (isChunkdError(e)) throw e;
      const { name, handshake } = o.connection;
      const hide = (text: string) => redact(text, o.connection.secrets);
      this.options.logger?.log('error', 'store call failed', { store: name, handshake, error: hide(String((e as Error)?.stack ?? e)) });
      const unreachable = storeUnreachable(e);
      const what = unreachable ? `could not be reached (${unreachable})` : 'did not complete the call';
      throw new StoreCallError(
        name,
        `The store '${name}' (${handshake}) ${what}: retry later; the server log has the details.`,
        unreachable,
        storeReason(e, hide),
      );
    }
  }

  /** The store's connection, opened on first use; one that does not open within `ms` is dropped (closed if it opens later) and tried again on the next call. */
  private connection(o: Open, ms: number): Promise<HandshakeImpl> {
    if (!o.impl) {
      const opening = o.plugin.connect(o.connection.config, ['stores', o.connection.name]);
      o.impl = opening;
      opening.catch(() => {
        if (o.impl === opening) o.impl = undefined; // retried on the next call
      });
    }
    const opening = o.impl;
    return deadline(opening, Number.isFinite(ms) ? ms : 0).catch((e: unknown) => {
      if (e instanceof StoreTimeout && o.impl === opening) {
        o.impl = undefined;
        void opening.then((impl) => impl.close()).catch(() => {});
      }
      throw e;
    });
  }
}

const localMessage = (store: string) =>
  `The store '${store}' is on this replica's disk (an embedded database under its data directory), and this server runs as one of several replicas (${flagOf('databaseUrl')}): writing to it would split its collections across replicas. Name a store every replica reaches in ${settingText('stores')}: pgvector, or lancedb on an object-store URI.`;

/** A mode that is none, or one the handshake cannot serve: a 422 naming the modes it can. */
function checkMode(o: Open, mode: string, modes: readonly SearchMode[]): void {
  const { name, handshake } = o.connection;
  if (!isSearchMode(mode))
    throw validationError(
      ['body', 'mode'],
      `mode must be one of ${SEARCH_MODES.join(', ')} (got '${mode}'); the store '${name}' (${handshake}) serves: ${modes.join(', ')}.`,
    );
  if (!modes.includes(mode))
    throw validationError(
      ['body', 'mode'],
      `The store '${name}' (${handshake}) cannot search in the ${mode} mode: it serves ${modes.join(', ')}. Send one of those, or leave mode out.`,
    );
}

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

/** The first id that repeats an earlier one (a store keeps one document per id): its index and the earlier one's. */
export function repeatedId(ids: readonly string[]): { at: number; first: number } | undefined {
  const seen = new Map<string, number>();
  for (const [at, id] of ids.entries()) {
    const first = seen.get(id);
    if (first !== undefined) return { at, first };
    seen.set(id, at);
  }
  return undefined;
}

/** Two documents of one write under one id: only the last would be kept. */
function checkDistinct(documents: readonly string[]): void {
  const repeat = repeatedId(documents);
  if (repeat)
    throw validationError(
      ['body', 'document', repeat.at],
      `documents ${repeat.first} and ${repeat.at} have one id ('${documents[repeat.at]!.slice(0, 100)}'): a store keeps one document per id, so one would replace the other. Give each document its own id.`,
    );
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
 * every number zero (no direction: its cosine with anything is undefined). Undefined for a good vector.
 */
export function vectorProblem(vector: ArrayLike<unknown>): string | undefined {
  let zero = true;
  for (let i = 0; i < vector.length; i++) {
    const x = vector[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) return `holds ${typeof x === 'number' ? x : JSON.stringify(x)} at ${i}: every number must be finite`;
    if (x !== 0) zero = false;
  }
  return zero ? 'is all zeros' : undefined;
}

/**
 * The documents' rows and the dimension every chunk's embedding shares, each chunk checked: one
 * without an embedding is a 422 that says to embed, as is a text or metadata a store cannot keep.
 * Works in slices of STORE_ROWS_PER_TURN chunks, yielding to the event loop between them.
 */
async function toRows(docs: readonly DocumentToStore[]): Promise<{ batch: { document: string; rows: StoreRow[] }[]; dimension: number | undefined }> {
  let dimension: number | undefined;
  let i = 0;
  const batch: { document: string; rows: StoreRow[] }[] = [];
  for (const { document, chunks, meta } of docs) {
    const rows: StoreRow[] = [];
    batch.push({ document: checkDocument(document), rows });
    for (const c of chunks) {
      if (i > 0 && i % STORE_ROWS_PER_TURN === 0) await tick();
      dimension = checkChunk(c, i++, dimension);
      rows.push(toRow(document, c, meta));
    }
  }
  return { batch, dimension };
}

/** Chunk `i` checked for a store (its embedding of `dimension` numbers, when one is known): the dimension it has. */
function checkChunk(c: ChunkToStore, i: number, dimension: number | undefined): number {
  if (!(Array.isArray(c.embedding) || c.embedding instanceof Float32Array) || c.embedding.length === 0)
    throw validationError(['chunks', i, 'embedding'], 'a chunk to store needs an embedding: put an embeddings step before the write step');
  if (dimension !== undefined && c.embedding.length !== dimension)
    throw validationError(['chunks', i, 'embedding'], `embeddings differ in length (${dimension} and ${c.embedding.length}): one model embeds a collection`);
  // chunkd's embeddings never give all zeros (a text the model knows no word of gets its words' hashed direction): a zero here came from elsewhere.
  const vector = vectorProblem(c.embedding);
  if (vector)
    throw validationError(
      ['chunks', i, 'embedding'],
      `chunk ${i}'s embedding ${vector} ('${c.text.slice(0, 40)}…'): a store cannot search such a vector (it has no direction, or a number that is not one). Embed the chunk with another model, or leave it out.`,
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
  return c.embedding.length;
}

function toRow(document: string, c: ChunkToStore, meta?: DocumentMeta): StoreRow {
  // context (overlap, table headers) is kept with the chunk: a reader of a hit wants it. The document's
  // own metadata (its name, the user's keys) follows; a user key never takes one of chunkd's (wire/metadata.ts).
  const metadata = { ...(c.metadata ?? {}), ...(c.context === undefined ? {} : { context: c.context }), ...meta };
  return {
    id: storeChunkId(document, c),
    document,
    text: c.text,
    start_index: c.start_index,
    end_index: c.end_index,
    token_count: c.token_count,
    metadata,
    embedding: c.embedding!,
    // what the full-text index reads, as the embedding refinery embeds and evaluation indexes it
    index_text: indexText(c),
  };
}

async function sequential<T>(items: readonly T[], each: (item: T) => Promise<void>): Promise<void> {
  for (const item of items) await each(item);
}

/**
 * Chunks a write is given one query timeout for. A server that keeps an HNSW index row by row
 * writes a few hundred chunks/s (pgvector on PostgreSQL, measured in bench/results.md: ~360 with
 * the plugin's index settings, ~700 with pgvector's default index), so one timeout for a write of
 * 100,000 chunks would refuse every such write; a larger batch gets one timeout per this
 * many chunks. The wait stays bounded, and a store that stops answering fails sooner where its
 * handshake holds each statement to the query timeout (pgvector's statement_timeout).
 */
export const CHUNKS_PER_WRITE_TIMEOUT = 10_000;

/** The deadline of a write of `chunks` chunks, in ms (0: none). */
export const writeDeadline = (timeoutMs: number, chunks: number): number => timeoutMs * Math.max(1, Math.ceil(chunks / CHUNKS_PER_WRITE_TIMEOUT));

/**
 * Chunks past which a write's garbage is collected once the thread idles (kernel/idle-collect.ts):
 * its rows as objects on this thread are then ~20 MB or more (~1 KB a row), worth a collection of
 * ~30 ms.
 */
export const LARGE_WRITE_CHUNKS = 20_000;
