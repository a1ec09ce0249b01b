import { resolve } from 'node:path';
import type pg from 'pg';
import type { ServiceFactory } from '../deps.js';
import { SchemaTooNewError } from '../storage/pg-migrate.js';
import { redactUrl, unreachableReason } from '../storage/pg-pool.js';
import type { PgJobStore } from './postgres.js';
import { SqliteJobStore } from './sqlite.js';
import { settingText } from '../settings.js';

/** The jobs database beside the pipelines one, in the data directory (SQLite back-end). */
export const JOBS_FILE = 'jobs.db';

/**
 * Opens the job store: PostgreSQL + pg-boss when --database-url is set (every replica consumes
 * the one queue), else SQLite run in this process. Consuming starts once the worker pool exists.
 */
export const jobStore: ServiceFactory<'jobs'> = async (settings, logger, services) => {
  const limits = { maxJobsBytes: settings.maxJobsBytes, maxDocumentOutputBytes: settings.maxDocumentOutputBytes };
  const common = { batchSize: settings.jobBatchSize, ttlS: settings.jobResultTtlS, storeWaitS: settings.jobStoreWaitS, logger, limits };
  const pool = services.postgres;
  const store =
    settings.databaseUrl && pool
      ? await openPg(pool, settings.databaseUrl, { ...common, expiryS: settings.jobBatchExpiryS })
      : await SqliteJobStore.open(resolve(settings.dataDir, JOBS_FILE), common);
  logger.log('info', 'job store open', { backend: settings.databaseUrl ? 'postgresql' : 'sqlite' });
  return {
    name: 'jobs',
    value: store,
    close: () => store.close(),
    start: ({ registry, executor, settings: s, services: all }) => store.start({ registry, executor, settings: s, services: all }),
  };
};

/** pg-boss (and the pg driver it loads) is imported only here: a server without a database does not load it (~0.13 s of every start). */
async function openPg(pool: pg.Pool, url: string, options: Parameters<typeof PgJobStore.open>[1]): Promise<PgJobStore> {
  try {
    const { PgJobStore } = await import('./postgres.js');
    return await PgJobStore.open(pool, options);
  } catch (e) {
    if (e instanceof SchemaTooNewError) throw e;
    const reason = unreachableReason(e) ?? (e as Error).message;
    throw new Error(
      `Cannot open the jobs database ${redactUrl(url)}: ${reason}. Check that PostgreSQL runs there and that ${settingText('databaseUrl')} is right.`,
      { cause: e },
    );
  }
}
