import { storedSizeOf } from '../pipelines/size.js';
import type pg from 'pg';
import { ChunkdError } from '../../kernel/errors.js';
import type { Migration } from './migrations.js';
import { migratePg } from './pg-migrate.js';
import { asStorageError } from './pg-pool.js';
import { cursorOf, seqOf } from './cursor.js';
import type { PipelinePage, PipelinePatch, PipelineRecord, PipelineStore } from './store.js';

/**
 * The PostgreSQL schema of the pipelines, as numbered steps (recorded in chunkd_migrations under
 * 'pipelines'; only ever appended). Same shape as SQLite's: `seq` orders the list and makes the
 * cursors, `size` is each row's stored size for byte-bounded pages. Steps are `json`, which keeps
 * the text as written (key order included), so both back-ends answer the same bytes.
 */
export const PG_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE pipelines (
        seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL,
        description TEXT,
        steps JSON NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        size INTEGER NOT NULL
      );
      CREATE UNIQUE INDEX pipelines_name ON pipelines (name);
      CREATE INDEX pipelines_page ON pipelines (seq) INCLUDE (size);
    `,
  },
];

interface Row {
  id: string;
  name: string;
  description: string | null;
  steps: PipelineRecord['steps'];
  created_at: string;
  updated_at: string;
}

const COLUMNS = 'id, name, description, steps, created_at, updated_at';
const bytes = (value: string | null | undefined) => (value == null ? 0 : Buffer.byteLength(value));
/** Columns a patch may set; the only names ever spliced into SQL. */
const PATCHABLE = ['name', 'description', 'steps', 'updated_at'] as const;

/**
 * Pipelines in PostgreSQL, shared by every replica that names the same database. Each method is
 * one statement (hence atomic, and one snapshot); the unique index on name decides a race between
 * replicas. The pool belongs to the postgres service (pg-pool.ts): close() leaves it open for its
 * other users.
 */
export class PgPipelineStore implements PipelineStore {
  private constructor(private readonly pool: pg.Pool) {}

  /** Brings the schema up to date (safe with N replicas starting at once), then serves from `pool`. */
  static async open(pool: pg.Pool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<PgPipelineStore> {
    await migratePg(pool, 'pipelines', migrations);
    return new PgPipelineStore(pool);
  }

  async list({ limit, after, maxBytes = Infinity }: { limit: number; after?: string; maxBytes?: number }): Promise<PipelinePage> {
    // One statement: the candidates' sizes come from the index (seq INCLUDE size), a running total
    // cuts the page where its byte budget ends (at least one row), and only the chosen rows are
    // read whole. One candidate more than the limit says whether a next page exists.
    const below = after === undefined ? undefined : seqOf(after);
    const params: unknown[] = [limit, Number.isFinite(maxBytes) ? maxBytes : null];
    if (below !== undefined) params.push(below);
    const sql = `
      WITH candidates AS (
        SELECT seq, size FROM pipelines ${below === undefined ? '' : 'WHERE seq < $3'} ORDER BY seq DESC LIMIT $1 + 1
      ), ranked AS (
        SELECT seq, row_number() OVER w AS n, sum(size) OVER w AS total FROM candidates WINDOW w AS (ORDER BY seq DESC)
      ), chosen AS (
        SELECT seq FROM ranked WHERE n <= $1 AND (n = 1 OR $2::bigint IS NULL OR total <= $2)
      )
      SELECT p.seq, ${COLUMNS.split(', ')
        .map((c) => `p.${c}`)
        .join(', ')}, (SELECT count(*) FROM candidates) AS candidates
      FROM chosen JOIN pipelines p USING (seq) ORDER BY p.seq DESC`;
    const { rows } = await this.run(() => this.pool.query<Row & { seq: string; candidates: string }>(sql, params));
    if (rows.length === 0) return { pipelines: [], next: null };
    const more = Number(rows[0]!.candidates) > rows.length;
    return { pipelines: rows.map(toRecord), next: more ? cursorOf(Number(rows.at(-1)!.seq)) : null };
  }

  async count(): Promise<number> {
    const { rows } = await this.run(() => this.pool.query<{ n: string }>('SELECT count(*) AS n FROM pipelines'));
    return Number(rows[0]!.n);
  }

  async get(id: string): Promise<PipelineRecord | undefined> {
    if (!storable(id)) return undefined;
    const { rows } = await this.run(() => this.pool.query<Row>(`SELECT ${COLUMNS} FROM pipelines WHERE id = $1`, [id]));
    return rows[0] && toRecord(rows[0]);
  }

  async getByName(name: string): Promise<PipelineRecord | undefined> {
    if (!storable(name)) return undefined;
    const { rows } = await this.run(() => this.pool.query<Row>(`SELECT ${COLUMNS} FROM pipelines WHERE name = $1`, [name]));
    return rows[0] && toRecord(rows[0]);
  }

  async create(r: PipelineRecord): Promise<PipelineRecord> {
    const steps = JSON.stringify(r.steps);
    const size = storedSizeOf(steps, r.name, r.description);
    const { rows } = await this.run(
      () =>
        this.pool.query<Row>(`INSERT INTO pipelines (${COLUMNS}, size) VALUES ($1, $2, $3, $4::json, $5, $6, $7) RETURNING ${COLUMNS}`, [
          r.id,
          r.name,
          r.description,
          steps,
          r.created_at,
          r.updated_at,
          size,
        ]),
      r.name,
    );
    return toRecord(rows[0]!);
  }

  async update(id: string, patch: PipelinePatch): Promise<PipelineRecord | undefined> {
    if (!storable(id)) return undefined;
    const keys = PATCHABLE.filter((k) => patch[k] !== undefined);
    const values = keys.map((k) => (k === 'steps' ? JSON.stringify(patch.steps) : patch[k]));
    // In SET, a column names its old value: the size loses the old values' bytes and gains the new ones'.
    const sized = keys.filter((k) => k !== 'updated_at');
    const old = sized.map((k) => `coalesce(octet_length(${k}::text), 0)`).join(' + ') || '0';
    const added = sized.reduce((n, k) => n + bytes(values[keys.indexOf(k)] as string | null), 0);
    const sets = keys.map((k, i) => `${k} = $${i + 1}${k === 'steps' ? '::json' : ''}`).join(', ');
    const sql = `UPDATE pipelines SET ${sets}, size = size - (${old}) + $${keys.length + 1} WHERE id = $${keys.length + 2} RETURNING ${COLUMNS}`;
    const { rows } = await this.run(() => this.pool.query<Row>(sql, [...values, added, id]), patch.name);
    return rows[0] && toRecord(rows[0]);
  }

  async delete(id: string): Promise<boolean> {
    if (!storable(id)) return false;
    const { rowCount } = await this.run(() => this.pool.query('DELETE FROM pipelines WHERE id = $1', [id]));
    return (rowCount ?? 0) > 0;
  }

  async ping(): Promise<void> {
    await this.run(() => this.pool.query('SELECT 1'));
  }

  async close(): Promise<void> {}

  /** A taken name is a CONFLICT, an unreachable database a 503 with the reason; anything else stays a bug (500). */
  private async run<T>(op: () => Promise<T>, name?: string): Promise<T> {
    try {
      return await op();
    } catch (e) {
      const { code, constraint } = e as { code?: string; constraint?: string };
      if (code === '23505' && constraint === 'pipelines_name') {
        throw new ChunkdError('CONFLICT', `A pipeline named '${name}' already exists: choose another name, or update that one (GET /v1/pipelines lists them).`);
      }
      throw asStorageError(e);
    }
  }
}

/** PostgreSQL text cannot hold U+0000: an id or name with one names no pipeline (as on SQLite), and is not sent. */
const storable = (key: string) => !key.includes('\u0000');

const toRecord = ({ id, name, description, steps, created_at, updated_at }: Row): PipelineRecord => ({ id, name, description, steps, created_at, updated_at });
