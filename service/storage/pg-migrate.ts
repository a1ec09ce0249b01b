import type pg from 'pg';
import type { Migration } from './migrations.js';

/** One advisory lock for every schema change of chunkd in a database (an arbitrary, fixed key). */
const LOCK_KEY = 0x6368756e; // 'chun'

/** Refusal to start: the database is at a schema this chunkd does not know. */
export class SchemaTooNewError extends Error {}

/**
 * Applies the steps of `component` (e.g. 'pipelines', 'jobs') after the last one the database
 * recorded in `chunkd_migrations`, each in its own transaction with the row that records it.
 * Every transaction first takes one advisory lock and reads the versions again under it: when N
 * replicas start at once on a new database, one applies each step and the others find it applied.
 */
export async function migratePg(pool: pg.Pool, component: string, migrations: readonly Migration[]): Promise<void> {
  const client = await pool.connect();
  try {
    const inLock = async <T>(work: () => Promise<T>): Promise<T> => {
      await client.query('BEGIN');
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY]);
        const result = await work();
        await client.query('COMMIT');
        return result;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    };
    const applied = async () =>
      Number((await client.query<{ v: string | null }>('SELECT max(version) AS v FROM chunkd_migrations WHERE component = $1', [component])).rows[0]!.v ?? 0);
    // Even IF NOT EXISTS races in PostgreSQL (two creators collide on the catalog): under the lock too.
    const found = await inLock(async () => {
      await client.query(
        'CREATE TABLE IF NOT EXISTS chunkd_migrations (component TEXT NOT NULL, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (component, version))',
      );
      return applied();
    });
    const latest = migrations.at(-1)?.version ?? 0;
    if (found > latest) {
      throw new SchemaTooNewError(
        `The ${component} tables in the PostgreSQL database have schema version ${found}, newer than this chunkd knows (${latest}): upgrade chunkd, or point --database-url at another database.`,
      );
    }
    for (const m of migrations.filter((x) => x.version > found)) {
      await inLock(async () => {
        if ((await applied()) >= m.version) return;
        await client.query(m.sql);
        await client.query('INSERT INTO chunkd_migrations (component, version) VALUES ($1, $2)', [component, m.version]);
      });
    }
  } finally {
    client.release();
  }
}

/**
 * Runs `work` while this process holds the migration lock, for schema changes chunkd does not
 * write itself (pg-boss creating its schema): N replicas starting on a new database then run it
 * one after the other, and each after the first finds the work done. A session lock, held on one
 * connection of the pool while `work` uses others; it is released when `work` ends, or by the
 * server if this process dies.
 */
export async function withMigrationLock<T>(pool: pg.Pool, work: () => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [LOCK_KEY]);
    try {
      return await work();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY]).catch((e: Error) => (broken = e));
    }
  } catch (e) {
    broken ??= e as Error;
    throw e;
  } finally {
    // A connection whose unlock failed may still hold the lock: dropped, never reused.
    client.release(broken);
  }
}
