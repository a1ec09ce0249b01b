import { resolve } from 'node:path';
import type pg from 'pg';
import type { ServiceFactory } from '../deps.js';
import { SchemaTooNewError } from './pg-migrate.js';
import { redactUrl, unreachableReason } from './pg-pool.js';
import { PgPipelineStore } from './postgres.js';
import { SqliteStore, StoreOpenError } from './sqlite.js';
import { settingText } from '../settings.js';

/** The database file inside the data directory. */
export const DATABASE_FILE = 'chunkd.db';

/**
 * Opens the pipeline store at start-up; boot closes it at shutdown. With --database-url it lives
 * in PostgreSQL, on the shared pool (opened before it, see postgres-pool), else in SQLite in the
 * data directory (created on first start).
 */
export const pipelineStore: ServiceFactory<'pipelines'> = async (settings, logger, services) => {
  const pool = services.postgres;
  if (settings.databaseUrl && pool) {
    const where = redactUrl(settings.databaseUrl);
    try {
      const store = await PgPipelineStore.open(pool);
      logger.log('info', 'pipelines database open', { database: where });
      return { name: 'pipelines', value: store, close: () => store.close() };
    } catch (e) {
      if (e instanceof SchemaTooNewError) throw new StoreOpenError(e.message);
      const reason = unreachableReason(e) ?? (e as Error).message;
      throw new StoreOpenError(
        `Cannot open the pipelines database ${where}: ${reason}. Check that PostgreSQL runs there and that ${settingText('databaseUrl')} is right.`,
        { cause: e },
      );
    }
  }
  const file = resolve(settings.dataDir, DATABASE_FILE);
  const store = await SqliteStore.open(file);
  logger.log('info', 'pipelines database open', { file });
  return { name: 'pipelines', value: store, close: () => store.close() };
};
