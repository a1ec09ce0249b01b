import type pg from 'pg';
import { ChunkdError } from '../../kernel/errors.js';
import type { Migration } from '../storage/migrations.js';
import { migratePg } from '../storage/pg-migrate.js';
import { asStorageError, asUnavailable } from '../storage/pg-pool.js';
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

/**
 * The files schema, as numbered steps (recorded in chunkd_migrations under 'files'; only ever
 * appended).
 * - chunkd_files: one row per file, and per reservation (`stored` false: an upload being
 *   extracted, whose `expires_at` is when the reservation lapses). The text is `bytea` (its UTF-8
 *   bytes): PostgreSQL `text` cannot hold U+0000, which a text file may. `structure` (the chef's
 *   spans) is `json`, kept as written and never read by the store.
 * - chunkd_file_bytes: the bytes as uploaded, apart from the rows that are listed and read (see
 *   FileBlobs).
 * - chunkd_file_usage: one row, the count and bytes of every row of chunkd_files. Every statement
 *   that adds or removes a file row changes it in the same statement or transaction; its row lock
 *   is what makes the quota exact across replicas.
 * - chunkd_file_sweep: when expired files were last swept, so one replica sweeps per interval.
 */
export const FILE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE chunkd_files (
        name text PRIMARY KEY,
        stored boolean NOT NULL DEFAULT false,
        filename text,
        size bigint NOT NULL DEFAULT 0,
        format text,
        text_chars bigint NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL,
        expires_at timestamptz,
        stored_bytes bigint NOT NULL,
        text bytea,
        structure json
      );
      CREATE INDEX chunkd_files_list ON chunkd_files (created_at DESC, name DESC) WHERE stored;
      CREATE INDEX chunkd_files_expiry ON chunkd_files (expires_at) WHERE expires_at IS NOT NULL;
      CREATE TABLE chunkd_file_bytes (
        name text PRIMARY KEY REFERENCES chunkd_files (name) ON DELETE CASCADE,
        bytes bytea NOT NULL
      );
      CREATE TABLE chunkd_file_usage (id integer PRIMARY KEY CHECK (id = 1), files bigint NOT NULL, bytes bigint NOT NULL);
      INSERT INTO chunkd_file_usage VALUES (1, 0, 0);
      CREATE TABLE chunkd_file_sweep (id integer PRIMARY KEY CHECK (id = 1), swept_at timestamptz NOT NULL);
      INSERT INTO chunkd_file_sweep VALUES (1, '-infinity');
    `,
  },
];

/** Something that runs a statement: the pool, or one client inside a transaction. */
type Queryable = Pick<pg.ClientBase, 'query'>;

/**
 * Where the bytes as uploaded are kept. Here, a table in the same database, written in the
 * transaction that stores the file and deleted with its row (ON DELETE CASCADE). For large
 * files an object store (S3, GCS, a shared volume) can implement the same two calls: `put` runs
 * before the file's row commits (an object whose row never commits is an orphan, removed by a
 * sweep of objects without a row), `get` reads it back, and the row's deletion is followed by the
 * object's. Nothing else in chunkd reads the bytes.
 */
export interface FileBlobs {
  put(tx: Queryable, name: string, bytes: Uint8Array): Promise<void>;
  get(db: Queryable, name: string): Promise<Uint8Array | undefined>;
}

export const tableBlobs: FileBlobs = {
  async put(tx, name, bytes) {
    await tx.query('INSERT INTO chunkd_file_bytes (name, bytes) VALUES ($1, $2)', [name, bytes]);
  },
  async get(db, name) {
    const { rows } = await db.query<{ bytes: Buffer }>('SELECT bytes FROM chunkd_file_bytes WHERE name = $1', [name]);
    return rows[0]?.bytes;
  },
};

/** Files removed per statement by a sweep: each well inside the statement timeout, whatever piled up. */
const SWEEP_GROUP = 100;

/** A live file: stored and not expired (by the database's clock, the same for every replica). */
const LIVE = 'stored AND (expires_at IS NULL OR expires_at > now())';
const RECORD = 'name, filename, size, format, text_chars, created_at, expires_at';

/** Deletes the rows `gone` selects and takes them off the usage row, in one statement; answers how many went. */
const removing = (gone: string) => `
  WITH gone AS (DELETE FROM chunkd_files WHERE ${gone} RETURNING stored_bytes)
  UPDATE chunkd_file_usage SET files = files - (SELECT count(*) FROM gone), bytes = bytes - (SELECT coalesce(sum(stored_bytes), 0) FROM gone)
  WHERE id = 1 RETURNING (SELECT count(*) FROM gone) AS n`;

interface Row {
  name: string;
  filename: string | null;
  size: string;
  format: string;
  text_chars: string;
  created_at: Date;
  expires_at: Date | null;
}

export interface PgFileOptions {
  /** How long a reservation holds its room when its upload never finishes (its replica died). */
  reservationMs: number;
  /** How often the replicas, together, sweep expired files (0: only when sweep() is called). */
  sweepMs?: number;
  blobs?: FileBlobs;
  onSweepError?: (e: Error) => void;
}

/**
 * Files in PostgreSQL, shared by every replica that names the same database: any replica reads,
 * chunks, lists and deletes any file. The quota is global: a reservation is one statement that
 * raises the usage row only while it stays within the limits (its row lock orders the replicas),
 * never a count followed by an insert. Expired files are swept by one replica per interval (it
 * claims the interval on chunkd_file_sweep), a group at a time with DELETE … RETURNING, so each is
 * removed, and taken off the usage, exactly once. The pool belongs to the postgres service.
 */
export class PgFileStore implements FileStore {
  private timer: NodeJS.Timeout | undefined;
  private readonly blobs: FileBlobs;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly quota: FileQuota,
    private readonly options: PgFileOptions,
  ) {
    this.blobs = options.blobs ?? tableBlobs;
  }

  /** Brings the schema up to date (safe with N replicas starting at once), then serves from `pool`. */
  static async open(pool: pg.Pool, quota: FileQuota, options: PgFileOptions, migrations: readonly Migration[] = FILE_MIGRATIONS): Promise<PgFileStore> {
    await migratePg(pool, 'files', migrations);
    const store = new PgFileStore(pool, quota, options);
    if (options.sweepMs) {
      store.timer = setInterval(() => void store.sweepIfDue().catch((e: Error) => options.onSweepError?.(e)), options.sweepMs);
      store.timer.unref();
    }
    return store;
  }

  async reserve(name: string, bytes: number): Promise<FileReservation> {
    if (!isFileName(name)) throw new Error(`Not a file name this store makes: ${name}`);
    const { rowCount } = await this.run(() =>
      this.pool.query(
        `WITH held AS (
           UPDATE chunkd_file_usage SET files = files + 1, bytes = bytes + $2
           WHERE id = 1 AND files + 1 <= $3 AND bytes + $2 <= $4 RETURNING 1
         )
         INSERT INTO chunkd_files (name, created_at, expires_at, stored_bytes)
         SELECT $1, now(), now() + make_interval(secs => $5), $2 FROM held`,
        [name, bytes, this.quota.maxFiles, this.quota.maxBytes, this.options.reservationMs / 1000],
      ),
    );
    if (!rowCount) {
      const used = await this.usage();
      throw new QuotaError(used.count + 1 > this.quota.maxFiles ? 'count' : 'bytes', used, this.quota);
    }
    return { name, bytes };
  }

  async put(reservation: FileReservation, record: FileRecord, content: FileContent): Promise<void> {
    const { bytes } = content;
    const { name } = reservation;
    if (record.name !== name) throw new Error(`The record ${record.name} is not the reservation ${name}.`);
    const textBytes = textBytesOf(content);
    const structure = structureJsonOf(content);
    const size = bytes.length + textBytes.length + (structure === null ? 0 : Buffer.byteLength(structure));
    let quota: QuotaError | undefined;
    try {
      await this.transaction(async (c) => {
        // The reservation's row first, then the usage row: the order every statement here locks them in.
        const held = await c.query<{ stored_bytes: string }>('SELECT stored_bytes FROM chunkd_files WHERE name = $1 AND NOT stored FOR UPDATE', [name]);
        if (!held.rows[0])
          throw new ChunkdError(
            'UNAVAILABLE',
            `The upload took longer than its reservation lasts (${this.options.reservationMs / 1000} s), and its room was given back: upload it again.`,
            { 'Retry-After': '1' },
          );
        const delta = size - Number(held.rows[0].stored_bytes);
        const grown = await c.query('UPDATE chunkd_file_usage SET bytes = bytes + $1 WHERE id = 1 AND ($1 <= 0 OR bytes + $1 <= $2)', [
          delta,
          this.quota.maxBytes,
        ]);
        if (!grown.rowCount) {
          const used = await c.query<{ files: string; bytes: string }>('SELECT files, bytes FROM chunkd_file_usage WHERE id = 1');
          quota = new QuotaError('bytes', { count: Number(used.rows[0]!.files), bytes: Number(used.rows[0]!.bytes) }, this.quota);
          throw quota;
        }
        await c.query(
          `UPDATE chunkd_files SET stored = true, filename = $2, size = $3, format = $4, text_chars = $5, created_at = $6, expires_at = $7,
             stored_bytes = $8, text = $9, structure = $10::json WHERE name = $1`,
          [
            name,
            record.filename,
            record.size,
            record.format,
            record.text_chars,
            record.created_at,
            record.expires_at,
            size,
            textBytes,
            typeof structure === 'string' || structure === null ? structure : structure.toString('utf8'),
          ],
        );
        await this.blobs.put(c, name, bytes);
      });
    } catch (e) {
      await this.release(reservation).catch(() => {}); // else it lapses on its own
      throw quota ?? e;
    }
  }

  async release({ name }: FileReservation): Promise<void> {
    await this.run(() => this.pool.query(removing('name = $1 AND NOT stored'), [name]));
  }

  async get(name: string): Promise<FileRecord | undefined> {
    if (!isFileName(name)) return undefined;
    const { rows } = await this.run(() => this.pool.query<Row>(`SELECT ${RECORD} FROM chunkd_files WHERE name = $1 AND ${LIVE}`, [name]));
    return rows[0] && toRecord(rows[0]);
  }

  async text(name: string): Promise<string | undefined> {
    if (!isFileName(name)) return undefined;
    const { rows } = await this.run(() => this.pool.query<{ text: Buffer }>(`SELECT text FROM chunkd_files WHERE name = $1 AND ${LIVE}`, [name]));
    return rows[0] && rows[0].text.toString('utf8');
  }

  async structureJson(name: string): Promise<Uint8Array | null | undefined> {
    if (!isFileName(name)) return undefined;
    // As text: the driver would JSON.parse a json column on this thread. The driver decodes every
    // field into a string (it has no binary mode), so the bytes are that string encoded again (native).
    const { rows } = await this.run(() =>
      this.pool.query<{ structure: string | null }>(`SELECT structure::text AS structure FROM chunkd_files WHERE name = $1 AND ${LIVE}`, [name]),
    );
    if (!rows[0]) return undefined;
    return rows[0].structure === null ? null : Buffer.from(rows[0].structure, 'utf8');
  }

  async original(name: string): Promise<Uint8Array | undefined> {
    if (!(await this.get(name))) return undefined;
    return this.run(() => this.blobs.get(this.pool, name));
  }

  async list({ limit, after }: { limit: number; after?: string }): Promise<FilePage> {
    const from = after === undefined ? undefined : pageAfter(after);
    const params: unknown[] = [limit + 1];
    if (from) params.push(new Date(from.at), from.name);
    const { rows } = await this.run(() =>
      this.pool.query<Row>(
        `SELECT ${RECORD} FROM chunkd_files WHERE ${LIVE} ${from ? 'AND (created_at, name) < ($2, $3)' : ''} ORDER BY created_at DESC, name DESC LIMIT $1`,
        params,
      ),
    );
    const files = rows.slice(0, limit).map(toRecord);
    return { files, next: rows.length > limit ? pageCursor(files.at(-1)!) : null };
  }

  async delete(name: string): Promise<boolean> {
    if (!isFileName(name)) return false;
    const { rows } = await this.run(() => this.pool.query<{ n: string }>(removing(`name = $1 AND ${LIVE}`), [name]));
    return Number(rows[0]?.n ?? 0) > 0;
  }

  /** Every stored file and every reservation in flight, on every replica. */
  async usage(): Promise<FileUsage> {
    const { rows } = await this.run(() => this.pool.query<{ files: string; bytes: string }>('SELECT files, bytes FROM chunkd_file_usage WHERE id = 1'));
    return { count: Number(rows[0]!.files), bytes: Number(rows[0]!.bytes) };
  }

  /** Expired files and lapsed reservations, a group per statement; rows another sweep holds are skipped, not waited for. */
  async sweep(): Promise<number> {
    let total = 0;
    for (;;) {
      const { rows } = await this.run(() =>
        this.pool.query<{ n: string }>(
          removing(`name IN (SELECT name FROM chunkd_files WHERE expires_at <= now() LIMIT ${SWEEP_GROUP} FOR UPDATE SKIP LOCKED)`),
        ),
      );
      const n = Number(rows[0]?.n ?? 0);
      total += n;
      if (n < SWEEP_GROUP) return total;
    }
  }

  /** The timer's sweep: run by the one replica that claims this interval, skipped by the others. */
  async sweepIfDue(): Promise<number> {
    const { rowCount } = await this.run(() =>
      this.pool.query('UPDATE chunkd_file_sweep SET swept_at = now() WHERE id = 1 AND swept_at <= now() - make_interval(secs => $1)', [
        (this.options.sweepMs ?? 0) / 1000,
      ]),
    );
    return rowCount ? this.sweep() : 0;
  }

  async ping(): Promise<void> {
    await this.run(() => this.pool.query('SELECT 1 FROM chunkd_file_usage WHERE id = 1'));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
  }

  private async transaction(work: (c: pg.PoolClient) => Promise<void>): Promise<void> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (e) {
      throw asUnavailable(e, 'The files database');
    }
    let failure: unknown;
    try {
      await client.query('BEGIN');
      await work(client);
      await client.query('COMMIT');
    } catch (e) {
      failure = e;
      await client.query('ROLLBACK').catch(() => {});
      if (e instanceof ChunkdError || e instanceof QuotaError) throw e;
      throw asStorageError(e, 'The files database');
    } finally {
      // A broken connection is dropped, not reused.
      client.release(failure !== undefined && asUnavailable(failure) !== failure ? (failure as Error) : undefined);
    }
  }

  /** The database unreachable is a 503 with a reason safe to show; input it refuses a 422; anything else stays a bug. */
  private async run<T>(op: () => Promise<T>): Promise<T> {
    try {
      return await op();
    } catch (e) {
      throw asStorageError(e, 'The files database');
    }
  }
}

const toRecord = (r: Row): FileRecord => ({
  name: r.name,
  filename: r.filename,
  size: Number(r.size),
  format: r.format,
  text_chars: Number(r.text_chars),
  created_at: r.created_at.toISOString(),
  expires_at: r.expires_at && r.expires_at.toISOString(),
});
