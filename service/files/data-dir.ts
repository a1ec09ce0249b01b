import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pageAfter, pageCursor } from './cursor.js';
import {
  isFileName,
  QuotaError,
  structureJsonOf,
  textBytesOf,
  type FileContent,
  type FilePage,
  type FileQuota,
  type FileRecord,
  type FileReservation,
  type FileStore,
  type FileUsage,
} from './store.js';

const META = 'meta.json';
const ORIGINAL = 'original';
const TEXT = 'text.txt';
const STRUCTURE = 'structure.json';
/**
 * A temporary folder older than this is a put cut short (a put takes seconds at most); a younger
 * one may be another replica's upload in flight in a shared folder, and is left alone.
 */
export const STALE_TMP_MS = 60 * 60 * 1000;

interface Entry {
  record: FileRecord;
  bytes: number;
}

/**
 * Files in `<data-dir>/files/<name>/` (meta.json, the original bytes, the extracted text). Each is
 * written in a temporary folder and renamed into place, so a crash never leaves half a file
 * visible. Reads go to the folder (a file another process put there or removed is seen at once),
 * so replicas may share it; the quota is counted from an index each process keeps in memory,
 * loaded at open, and so is exact only for the files one process wrote (for a quota shared by
 * replicas, use PostgreSQL: postgres.ts). Reservations live in that memory too: a process that
 * dies takes its reservations with it.
 */
export class DataDirFileStore implements FileStore {
  private readonly index = new Map<string, Entry>();
  /** Reservations of uploads in flight (name → bytes held), already counted against the quota. */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly dir: string,
    private readonly quota: FileQuota,
    private readonly now: () => number,
  ) {}

  static async open(dir: string, quota: FileQuota, options: { sweepMs?: number; now?: () => number } = {}): Promise<DataDirFileStore> {
    const store = new DataDirFileStore(dir, quota, options.now ?? Date.now);
    await mkdir(dir, { recursive: true });
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const at = join(dir, entry.name);
      if (!isFileName(entry.name)) {
        if (entry.name.startsWith('.tmp-') && (await isStale(at, store.now()))) await rm(at, { recursive: true, force: true });
        continue;
      }
      try {
        const found = await store.read(entry.name);
        if (!found) throw new Error('no metadata');
        store.index.set(entry.name, found);
      } catch {
        await rm(at, { recursive: true, force: true }); // unreadable: never served, never counted
      }
    }
    await store.sweep();
    if (options.sweepMs) {
      store.timer = setInterval(() => void store.sweep().catch(() => {}), options.sweepMs);
      store.timer.unref();
    }
    return store;
  }

  async usage(): Promise<FileUsage> {
    const stored = this.stored();
    let held = 0;
    for (const b of this.pending.values()) held += b;
    return { count: stored.count + this.pending.size, bytes: stored.bytes + held };
  }

  async reserve(name: string, bytes: number): Promise<FileReservation> {
    if (!isFileName(name)) throw new Error(`Not a file name this store makes: ${name}`);
    this.hold(name, 1, bytes, 0);
    return { name, bytes };
  }

  async put(reservation: FileReservation, record: FileRecord, content: FileContent): Promise<void> {
    const { bytes } = content;
    const { name } = reservation;
    if (record.name !== name || !this.pending.has(name)) throw new Error(`No reservation for ${record.name}: reserve before put.`);
    const textBytes = textBytesOf(content);
    const structure = structureJsonOf(content);
    const size = bytes.length + textBytes.length + (structure === null ? 0 : Buffer.byteLength(structure));
    const tmp = join(this.dir, `.tmp-${name}`);
    try {
      // Grown to the stored size in one synchronous step with the check: concurrent puts cannot overshoot together.
      this.hold(name, 0, size, this.pending.get(name)!);
      await mkdir(tmp);
      await writeFile(join(tmp, ORIGINAL), bytes);
      await writeFile(join(tmp, TEXT), textBytes);
      if (structure !== null) await writeFile(join(tmp, STRUCTURE), structure);
      await writeFile(join(tmp, META), JSON.stringify({ ...record, stored_bytes: size }));
      await rename(tmp, join(this.dir, name));
      this.index.set(name, { record, bytes: size });
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    } finally {
      this.pending.delete(name);
    }
  }

  async release({ name }: FileReservation): Promise<void> {
    this.pending.delete(name);
  }

  /**
   * Check and hold, in one synchronous step: `count` more files and `bytes` in place of the
   * `was` bytes `name` held. QuotaError when it would not fit; the reservation is dropped then.
   */
  private hold(name: string, count: number, bytes: number, was: number): void {
    const stored = this.stored();
    let held = 0;
    for (const b of this.pending.values()) held += b;
    const used = { count: stored.count + this.pending.size, bytes: stored.bytes + held };
    const fail = (limit: 'count' | 'bytes') => {
      this.pending.delete(name);
      return new QuotaError(limit, used, this.quota);
    };
    if (used.count + count > this.quota.maxFiles) throw fail('count');
    if (used.bytes - was + bytes > this.quota.maxBytes) throw fail('bytes');
    this.pending.set(name, bytes);
  }

  private stored(): FileUsage {
    let bytes = 0;
    for (const e of this.index.values()) bytes += e.bytes;
    return { count: this.index.size, bytes };
  }

  async get(name: string): Promise<FileRecord | undefined> {
    return (await this.live(name))?.record;
  }

  async text(name: string): Promise<string | undefined> {
    if (!(await this.live(name))) return undefined;
    try {
      return await readFile(join(this.dir, name, TEXT), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined; // deleted meanwhile
      throw e;
    }
  }

  async structureJson(name: string): Promise<Uint8Array | null | undefined> {
    if (!(await this.live(name))) return undefined;
    try {
      return await readFile(join(this.dir, name, STRUCTURE));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return (await this.live(name)) ? null : undefined; // none stored, or deleted meanwhile
      throw e;
    }
  }

  async original(name: string): Promise<Uint8Array | undefined> {
    if (!(await this.live(name))) return undefined;
    try {
      return await readFile(join(this.dir, name, ORIGINAL));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
  }

  /** Read from the folder, so files other processes put there are listed too. */
  async list({ limit, after }: { limit: number; after?: string }): Promise<FilePage> {
    const from = after === undefined ? undefined : pageAfter(after);
    const records: FileRecord[] = [];
    for (const entry of await readdir(this.dir)) {
      if (!isFileName(entry)) continue;
      const found = await this.read(entry).catch(() => undefined);
      if (found && !this.expired(found.record)) records.push(found.record);
    }
    const key = (r: FileRecord) => [Date.parse(r.created_at), r.name] as const;
    records.sort((a, b) => key(b)[0] - key(a)[0] || (key(b)[1] < key(a)[1] ? -1 : key(b)[1] > key(a)[1] ? 1 : 0));
    const rest = from === undefined ? records : records.filter((r) => key(r)[0] < from.at || (key(r)[0] === from.at && r.name < from.name));
    const files = rest.slice(0, limit);
    return { files, next: rest.length > limit ? pageCursor(files.at(-1)!) : null };
  }

  async ping(): Promise<void> {
    await stat(this.dir);
  }

  async delete(name: string): Promise<boolean> {
    if (!(await this.live(name))) return false;
    await this.remove(name);
    return true;
  }

  async sweep(): Promise<number> {
    const gone = [...this.index.values()].filter((e) => this.expired(e.record)).map((e) => e.record.name);
    for (const name of gone) await this.remove(name);
    return gone.length;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  /** The entry, read from the folder, unless unknown or expired (an expired one is removed on the way). */
  private async live(name: string): Promise<Entry | undefined> {
    if (!isFileName(name)) return undefined;
    const entry = await this.read(name);
    if (!entry) {
      this.index.delete(name); // removed by another process
      return undefined;
    }
    this.index.set(name, entry);
    if (!this.expired(entry.record)) return entry;
    await this.remove(name);
    return undefined;
  }

  private async read(name: string): Promise<Entry | undefined> {
    let raw: string;
    try {
      raw = await readFile(join(this.dir, name, META), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    const { stored_bytes, ...record } = JSON.parse(raw) as FileRecord & { stored_bytes: number };
    return { record, bytes: stored_bytes };
  }

  private expired(record: FileRecord): boolean {
    return record.expires_at !== null && Date.parse(record.expires_at) <= this.now();
  }

  private async remove(name: string): Promise<void> {
    this.index.delete(name);
    await rm(join(this.dir, name), { recursive: true, force: true });
  }
}

/** Whether a temporary folder was last written more than STALE_TMP_MS ago (false once it is gone). */
async function isStale(path: string, now: number): Promise<boolean> {
  try {
    return now - (await stat(path)).mtimeMs > STALE_TMP_MS;
  } catch {
    return false;
  }
}
