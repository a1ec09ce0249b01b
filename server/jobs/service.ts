import { resolve } from 'node:path';
import type { ServiceFactory } from '../boot.js';
import { PgJobStore } from './postgres.js';
import { SqliteJobStore } from './sqlite.js';

/** Key of the job store in AppDeps.services. */
export const JOB_STORE = 'jobs';

/** The jobs database beside the pipelines one, in the data directory (SQLite back-end). */
export const JOBS_FILE = 'jobs.db';

/**
 * Opens the job store: PostgreSQL + pg-boss when --database-url is set (every replica consumes
 * the one queue), else SQLite run in this process. Consuming starts once the worker pool exists.
 */
export const jobStore: ServiceFactory = async (settings, logger) => {
  const common = { batchSize: settings.jobBatchSize, ttlS: settings.jobResultTtlS, logger };
  const store = settings.databaseUrl
    ? await PgJobStore.open(settings.databaseUrl, { ...common, expiryS: settings.jobBatchExpiryS })
    : await SqliteJobStore.open(resolve(settings.dataDir, JOBS_FILE), common);
  logger.log('info', 'job store open', { backend: settings.databaseUrl ? 'postgresql' : 'sqlite' });
  return {
    name: JOB_STORE,
    value: store,
    close: () => store.close(),
    start: ({ registry, executor, settings: s }) => store.start({ registry, executor, settings: s }),
  };
};
