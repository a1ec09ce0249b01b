/**
 * The services of one chunkd process, each under its noun, typed: what the assembly opens and the
 * routes, the job consumers and the CLI receive. A service that lives in PostgreSQL may be a
 * stand-in answering 503 until the database is reached (service/assembly.ts).
 */
import type pg from 'pg';
import type { UploadAdmission } from './files/admission.js';
import type { FileStore } from './files/store.js';
import type { JobStore } from './jobs/store.js';
import type { PipelineStore } from './storage/store.js';
import type { Stores } from './stores/stores.js';

export interface Services {
  /** The PostgreSQL pool with --database-url, shared by the services that live there. */
  postgres?: pg.Pool;
  /** The cap on upload bytes in flight (one per process). */
  uploads: UploadAdmission;
  pipelines: PipelineStore;
  files: FileStore;
  jobs: JobStore;
  /** The vector-store connections. */
  stores: Stores;
}
