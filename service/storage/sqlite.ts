import { storedSizeOf } from '../pipelines/size.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { open, type Database } from 'sqlite';
import sqlite3 from 'sqlite3';
import { ChunkdError } from '../../kernel/errors.js';
import { MIGRATIONS, type Migration } from './migrations.js';
import { cursorOf, seqOf } from './cursor.js';
import { type PipelinePage, type PipelinePatch, type PipelineRecord, type PipelineStore } from './store.js';
import { settingText } from '../settings.js';

interface Row {
  id: string;
  name: string;
  description: string | null;
  steps: string;
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, name, description, steps, created_at, updated_at';
/** UTF-8 bytes of a stored column's value: what the `size` column sums (migration 2). */
const bytes = (value: string | null | undefined) => (value == null ? 0 : Buffer.byteLength(value));
/** Columns a patch may set; the only names ever spliced into SQL. */
const PATCHABLE = ['name', 'description', 'steps', 'updated_at'] as const;

/** A database that cannot be opened or migrated: start-up stops with this message. */
export class StoreOpenError extends Error {}

/**
 * Pipelines in one SQLite file. WAL lets reads run beside a write; `synchronous = FULL` syncs the
 * WAL on every commit, so a pipeline that was answered 201 survives a crash of the process or of
 * the machine. Each operation is a single statement (INSERT/UPDATE … RETURNING), hence atomic.
 * A RETURNING statement commits its implicit transaction only when it is stepped to its end (or
 * finalized): it is read with `all`, never `get`, which resolves after the first row with the
 * statement still open, so an answer could be sent before the commit and lost with kill -9.
 */
export class SqliteStore implements PipelineStore {
  private closing: Promise<void> | undefined;

  private constructor(private readonly db: Database) {}

  static async open(file: string, migrations: readonly Migration[] = MIGRATIONS): Promise<SqliteStore> {
    let db: Database | undefined;
    try {
      mkdirSync(dirname(file), { recursive: true });
      db = await open({ filename: file, driver: sqlite3.Database });
      await db.exec('PRAGMA busy_timeout = 5000'); // another process on the same file waits instead of failing
      const { journal_mode: mode } = (await db.get<{ journal_mode: string }>('PRAGMA journal_mode = WAL'))!;
      if (mode !== 'wal') throw new Error(`WAL mode is not available there (got ${mode})`);
      await db.exec('PRAGMA synchronous = FULL');
      await migrate(db, migrations);
      return new SqliteStore(db);
    } catch (e) {
      await db?.close().catch(() => {});
      if (e instanceof StoreOpenError) throw e;
      throw new StoreOpenError(
        `Cannot open the pipelines database ${file}: ${(e as Error).message}. Choose a writable directory with ${settingText('dataDir')}.`,
      );
    }
  }

  async list({ limit, after, maxBytes = Infinity }: { limit: number; after?: string; maxBytes?: number }): Promise<PipelinePage> {
    // seq is the rowid: a page is a range scan of the primary key, however deep. The sizes come
    // first, without the rows, so a page of huge pipelines is never read whole; one row more than
    // asked says whether a next page exists, so the last page has no `next`.
    const below = after === undefined ? undefined : seqOf(after);
    const where = below === undefined ? '' : 'WHERE seq < ?';
    const sizes = await this.run(() =>
      this.db.all<{ seq: number; size: number }[]>(
        `SELECT seq, size FROM pipelines INDEXED BY pipelines_page ${where} ORDER BY seq DESC LIMIT ?`,
        ...(below === undefined ? [] : [below]),
        limit + 1,
      ),
    );
    let take = 0;
    for (let bytes = 0; take < Math.min(limit, sizes.length); take++) {
      bytes += sizes[take]!.size;
      if (take > 0 && bytes > maxBytes) break;
    }
    if (take === 0) return { pipelines: [], next: null };
    const [first, last] = [sizes[0]!.seq, sizes[take - 1]!.seq];
    // A pipeline deleted meanwhile is simply not on the page; one created meanwhile has a larger seq.
    const rows = await this.run(() => this.db.all<Row[]>(`SELECT ${COLUMNS} FROM pipelines WHERE seq <= ? AND seq >= ? ORDER BY seq DESC`, first, last));
    return { pipelines: rows.map(toRecord), next: take < sizes.length ? cursorOf(last) : null };
  }

  async count(): Promise<number> {
    return (await this.run(() => this.db.get<{ n: number }>('SELECT count(*) AS n FROM pipelines')))!.n;
  }

  async get(id: string): Promise<PipelineRecord | undefined> {
    const row = await this.run(() => this.db.get<Row>(`SELECT ${COLUMNS} FROM pipelines WHERE id = ?`, id));
    return row && toRecord(row);
  }

  async getByName(name: string): Promise<PipelineRecord | undefined> {
    const row = await this.run(() => this.db.get<Row>(`SELECT ${COLUMNS} FROM pipelines WHERE name = ?`, name));
    return row && toRecord(row);
  }

  async create(r: PipelineRecord): Promise<PipelineRecord> {
    const steps = JSON.stringify(r.steps);
    const size = storedSizeOf(steps, r.name, r.description);
    const row = await this.run(
      () =>
        this.returning(
          `INSERT INTO pipelines (${COLUMNS}, size) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
          r.id,
          r.name,
          r.description,
          steps,
          r.created_at,
          r.updated_at,
          size,
        ),
      r.name,
    );
    return toRecord(row!);
  }

  async update(id: string, patch: PipelinePatch): Promise<PipelineRecord | undefined> {
    const keys = PATCHABLE.filter((k) => patch[k] !== undefined);
    const values = keys.map((k) => (k === 'steps' ? JSON.stringify(patch.steps) : patch[k]));
    // In SET, a column names its old value: the size loses the old values' bytes and gains the new ones'.
    const sized = keys.filter((k) => k !== 'updated_at');
    const delta = sized.map((k) => `ifnull(length(CAST(${k} AS BLOB)), 0)`).join(' + ') || '0';
    const added = sized.reduce((n, k) => n + bytes(values[keys.indexOf(k)] as string | null), 0);
    const sql = `UPDATE pipelines SET ${keys.map((k) => `${k} = ?`).join(', ')}, size = size - (${delta}) + ? WHERE id = ? RETURNING ${COLUMNS}`;
    const row = await this.run(() => this.returning(sql, ...values, added, id), patch.name);
    return row && toRecord(row);
  }

  async delete(id: string): Promise<boolean> {
    const { changes } = await this.run(() => this.db.run('DELETE FROM pipelines WHERE id = ?', id));
    return (changes ?? 0) > 0;
  }

  async ping(): Promise<void> {
    await this.run(() => this.db.get('SELECT 1'));
  }

  /** Waits for queued statements, checkpoints the WAL into the main file and closes. Safe to call twice. */
  close(): Promise<void> {
    return (this.closing ??= this.db.close());
  }

  /** The one row of a write with RETURNING, once the statement ran to its end and so committed. */
  private async returning(sql: string, ...params: unknown[]): Promise<Row | undefined> {
    return (await this.db.all<Row[]>(sql, ...params))[0];
  }

  /** Database failures a client can act on become catalogue errors; anything else stays a bug (500). */
  private async run<T>(op: () => Promise<T>, name?: string): Promise<T> {
    try {
      return await op();
    } catch (e) {
      const { code, message } = e as { code?: string; message?: string };
      if (code === 'SQLITE_CONSTRAINT' && /pipelines\.name/.test(message ?? '')) {
        throw new ChunkdError('CONFLICT', `A pipeline named '${name}' already exists: choose another name, or update that one (GET /v1/pipelines lists them).`);
      }
      if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED')
        throw new ChunkdError('UNAVAILABLE', 'The pipelines database is busy: retry in a moment.', { 'Retry-After': '1' });
      if (code === 'SQLITE_FULL') throw new ChunkdError('UNAVAILABLE', 'The disk holding the pipelines database is full: free space in the data directory.');
      throw e;
    }
  }
}

async function migrate(db: Database, migrations: readonly Migration[]): Promise<void> {
  const version = async () => (await db.get<{ user_version: number }>('PRAGMA user_version'))!.user_version;
  const latest = migrations.at(-1)?.version ?? 0;
  const found = await version();
  if (found > latest) {
    throw new StoreOpenError(
      `The pipelines database has schema version ${found}, newer than this chunkd knows (${latest}): upgrade chunkd, or point --data-dir elsewhere.`,
    );
  }
  for (const m of migrations.filter((x) => x.version > found)) {
    // IMMEDIATE takes the write lock first, and the version is read again under it: of two
    // processes opening a new database at once, only one applies each step.
    await db.exec('BEGIN IMMEDIATE');
    try {
      if ((await version()) < m.version) await db.exec(`${m.sql};\nPRAGMA user_version = ${m.version}`);
      await db.exec('COMMIT');
    } catch (e) {
      await db.exec('ROLLBACK').catch(() => {});
      throw e;
    }
  }
}

const toRecord = (row: Row): PipelineRecord => ({ ...row, steps: JSON.parse(row.steps) as PipelineRecord['steps'] });
