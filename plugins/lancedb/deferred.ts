/**
 * A connection to a LanceDB directory on this machine that does not exist yet holds no collection,
 * and listing it needs no engine: LanceDB and Arrow (a native module: ~140 ms of the thread that
 * loads it) are loaded on the connection's first other use, once the directory appears (another
 * process wrote), or when warmed. A CLI command that lists the stores never loads them; a server
 * warms its stores once it listens, so the load never holds up a request (loaded by a first write,
 * it held /health 120–160 ms in bench/big-write.ts).
 */
import { existsSync } from 'node:fs';
import type { Static } from '#typebox';
import type { CollectionInfo, DocumentInfo, HandshakeImpl, StoreHit, StoreQuery, StoreRow, WriteMeta } from '../../kernel/index.js';
import type { LanceStoreUpkeep } from './impl.js';
import { isLocal, type LanceDbConfig } from './config.js';

type Config = Static<typeof LanceDbConfig>;
type Opened = HandshakeImpl & LanceStoreUpkeep;

const open = async (config: Config): Promise<Opened> => (await (await import('./impl.js')).create(config)) as Opened;

/** The store for `config`: opened now, unless it is a local directory that does not exist yet. */
export async function create(config: Config): Promise<HandshakeImpl> {
  return isLocal(config) && !existsSync(config.path) ? new Deferred(config) : open(config);
}

class Deferred implements HandshakeImpl, LanceStoreUpkeep {
  private opened: Promise<Opened> | undefined;
  constructor(private readonly config: Config) {}

  private store(): Promise<Opened> {
    return (this.opened ??= open(this.config));
  }

  async collections(): Promise<CollectionInfo[]> {
    return this.opened || existsSync(this.config.path) ? (await this.store()).collections() : [];
  }
  async write(collection: string, document: string, rows: StoreRow[], meta: WriteMeta): Promise<void> {
    return (await this.store()).write(collection, document, rows, meta);
  }
  async writeMany(collection: string, docs: { document: string; rows: StoreRow[] }[], meta: WriteMeta): Promise<void> {
    return (await this.store()).writeMany!(collection, docs, meta);
  }
  async delete(collection: string, document: string): Promise<number> {
    return (await this.store()).delete(collection, document);
  }
  async drop(collection: string): Promise<void> {
    return (await this.store()).drop!(collection);
  }
  async settle(collection: string): Promise<void> {
    return (await this.store()).settle!(collection);
  }
  async documents(collection: string, page: { after?: string; limit: number }): Promise<DocumentInfo[]> {
    return (await this.store()).documents!(collection, page);
  }
  async search(collection: string, q: StoreQuery): Promise<StoreHit[]> {
    return (await this.store()).search(collection, q);
  }
  async warm(): Promise<void> {
    await this.store();
  }
  async settled(): Promise<void> {
    if (this.opened) await (await this.opened).settled();
  }
  async close(): Promise<void> {
    if (this.opened) await (await this.opened).close();
  }
}
