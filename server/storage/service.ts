import { resolve } from 'node:path';
import type { ServiceFactory } from '../boot.js';
import { SqliteStore } from './sqlite.js';

/** The database file inside the data directory. */
export const DATABASE_FILE = 'chunkd.db';

/** Key of the store in AppDeps.services. */
export const PIPELINE_STORE = 'pipelines';

/** Opens (creating on first start) the pipeline store at start-up; boot closes it at shutdown. */
export const pipelineStore: ServiceFactory = async (settings, logger) => {
  const file = resolve(settings.dataDir, DATABASE_FILE);
  const store = await SqliteStore.open(file);
  logger.log('info', 'pipelines database open', { file });
  return { name: PIPELINE_STORE, value: store, close: () => store.close() };
};
