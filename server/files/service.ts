import { resolve } from 'node:path';
import type { ServiceFactory } from '../boot.js';
import { DataDirFileStore } from './data-dir.js';

/** Key of the file store in AppDeps.services. */
export const FILE_STORE = 'files';

/** The longest wait between two sweeps of expired files (reads never serve one meanwhile). */
const SWEEP_MAX_MS = 60_000;

/** Opens `<data-dir>/files` at start-up, sweeping expired files on a timer; boot closes it at shutdown. */
export const fileStore: ServiceFactory = async (settings, logger) => {
  const dir = resolve(settings.dataDir, 'files');
  const expiryMs = settings.fileExpirySeconds * 1000;
  const store = await DataDirFileStore.open(dir, { maxFiles: settings.maxFiles, maxBytes: settings.maxFilesBytes }, { sweepMs: expiryMs ? Math.min(SWEEP_MAX_MS, Math.max(1000, expiryMs)) : undefined });
  logger.log('info', 'file store open', { dir, files: store.usage().count });
  return { name: FILE_STORE, value: store, close: () => store.close() };
};
