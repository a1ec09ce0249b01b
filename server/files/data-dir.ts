import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isFileName, QuotaError, type FileQuota, type FileRecord, type FileStore, type FileUsage } from './store.js';

const META = 'meta.json';
const ORIGINAL = 'original';
const TEXT = 'text.txt';
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
 * loaded at open, and so is exact only for the files one process wrote.
 */
export class DataDirFileStore implements FileStore {
  private readonly index = new Map<string, Entry>();
  /** Bytes and count of puts in flight, already counted against the quota. */
  private pending = { count: 0, bytes: 0 };
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

  usage(): FileUsage {
    let bytes = 0;
    for (const e of this.index.values()) bytes += e.bytes;
    return { count: this.index.size, bytes };
  }

  async put(record: FileRecord, bytes: Uint8Array, text: string): Promise<void> {
    if (!isFileName(record.name)) throw new Error(`Not a file name this store makes: ${record.name}`);
    const textBytes = Buffer.from(text, 'utf8');
    const size = bytes.length + textBytes.length;
    // Checked and reserved in one synchronous step: concurrent uploads cannot overshoot the quota together.
    const used = this.usage();
    const after = { count: used.count + this.pending.count + 1, bytes: used.bytes + this.pending.bytes + size };
    if (after.count > this.quota.maxFiles) throw new QuotaError('count', used, this.quota);
    if (after.bytes > this.quota.maxBytes) throw new QuotaError('bytes', used, this.quota);
    this.pending.count++;
    this.pending.bytes += size;
    const tmp = join(this.dir, `.tmp-${record.name}`);
    try {
      await mkdir(tmp);
      await writeFile(join(tmp, ORIGINAL), bytes);
      await writeFile(join(tmp, TEXT), textBytes);
      await writeFile(join(tmp, META), JSON.stringify({ ...record, stored_bytes: size }));
      await rename(tmp, join(this.dir, record.name));
      this.index.set(record.name, { record, bytes: size });
    } catch (e) {
      await rm(tmp, { recursive: true, force: true });
      throw e;
    } finally {
      this.pending.count--;
      this.pending.bytes -= size;
    }
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
