import { resolve } from 'node:path';
import type pg from 'pg';
import type { ServiceFactory } from '../deps.js';
import { SchemaTooNewError } from '../storage/pg-migrate.js';
import { redactUrl, unreachableReason } from '../storage/pg-pool.js';
import { UploadAdmission, uploadLimit } from './admission.js';
import { DataDirFileStore } from './data-dir.js';
import { PgFileStore } from './postgres.js';
import { settingText } from '../settings.js';

/** Uploads of the largest size that --max-upload-bytes-in-flight=auto admits at once. */
export const AUTO_UPLOADS_IN_FLIGHT = 4;

/** The cap on upload bytes in flight, one per process (each replica holds its own uploads' bytes). */
export const uploadAdmission: ServiceFactory<'uploads'> = async (settings) => {
  const cap = settings.maxUploadBytesInFlight;
  const value = new UploadAdmission(cap === 'auto' ? AUTO_UPLOADS_IN_FLIGHT * uploadLimit(settings.maxFileBytes) : cap);
  return { name: 'uploads', value, close: async () => {} };
};

/** The longest wait between two sweeps of expired files (reads never serve one meanwhile). */
const SWEEP_MAX_MS = 60_000;
/** A reservation outlives the longest upload by far; one left by a replica that died holds its room this long. */
const RESERVATION_MIN_MS = 10 * 60_000;

/**
 * Opens the file store at start-up; boot closes it at shutdown. With --database-url the files
 * live in PostgreSQL, on the shared pool, and every replica sees them and one quota; else in
 * `<data-dir>/files`. Expired files are swept on a timer either way.
 */
export const fileStore: ServiceFactory<'files'> = async (settings, logger, services) => {
  const quota = { maxFiles: settings.maxFiles, maxBytes: settings.maxFilesBytes };
  const expiryMs = settings.fileExpirySeconds * 1000;
  const sweepMs = expiryMs ? Math.min(SWEEP_MAX_MS, Math.max(1000, expiryMs)) : undefined;
  const pool = services.postgres;
  if (settings.databaseUrl && pool) {
    const reservationMs = Math.max(RESERVATION_MIN_MS, 2 * settings.requestTimeoutMs);
    try {
      const store = await PgFileStore.open(pool, quota, {
        reservationMs,
        sweepMs,
        onSweepError: (e) => logger.log('warning', 'expired files not swept; tried again later', { error: e.message }),
      });
      logger.log('info', 'file store open', { backend: 'postgresql', database: redactUrl(settings.databaseUrl) });
      return { name: 'files', value: store, close: () => store.close() };
    } catch (e) {
      if (e instanceof SchemaTooNewError) throw e;
      throw new Error(
        `Cannot open the files database ${redactUrl(settings.databaseUrl)}: ${unreachableReason(e) ?? (e as Error).message}. Check that PostgreSQL runs there and that ${settingText('databaseUrl')} is right.`,
        { cause: e },
      );
    }
  }
  const dir = resolve(settings.dataDir, 'files');
  const store = await DataDirFileStore.open(dir, quota, { sweepMs });
  logger.log('info', 'file store open', { backend: 'data-dir', dir, files: (await store.usage()).count });
  return { name: 'files', value: store, close: () => store.close() };
};
