import type { Static } from '#typebox';
import type { PipelineStep } from '../../wire/pipelines.js';

/** A stored pipeline as the API shows it. Steps are stored validated, with their configs' defaults filled in. */
export interface PipelineRecord {
  id: string;
  name: string;
  description: string | null;
  steps: Static<typeof PipelineStep>[];
  created_at: string;
  updated_at: string;
}

/** One page of the list: newest first; `next` continues after its last pipeline, null on the last page. */
export interface PipelinePage {
  pipelines: PipelineRecord[];
  next: string | null;
}

/**
 * A cursor that is not one a store handed out (altered, truncated, from another back-end).
 * The route answers it as a 422 on the query.
 */
export class InvalidCursorError extends Error {}

export type PipelinePatch = Partial<Pick<PipelineRecord, 'name' | 'description' | 'steps'>> & { updated_at: string };

/**
 * What the pipeline routes need from a database: SQLite (sqlite.ts, the default) and PostgreSQL
 * (postgres.ts, shared by replicas) implement it. Every method is one atomic operation, so concurrent requests need no
 * locking above it. `create` and `update` throw ChunkdError('CONFLICT') when the name is taken:
 * the database enforces the name's uniqueness, never a check-then-write.
 */
export interface PipelineStore {
  /**
   * At most `limit` pipelines, newest first, after the cursor `after` (a `next` from an earlier
   * page; the first page without it). A cursor marks a position, not an offset: pipelines created
   * while a client pages through do not shift later pages (they come before the first), and none
   * is seen twice. With `maxBytes`, the page also ends before its pipelines' stored size (UTF-8
   * bytes of steps, name and description) passes it, holding at least one: pipelines stored
   * before a size cap existed cannot make one answer huge. Throws InvalidCursorError for a cursor
   * this store did not make.
   */
  list(page: { limit: number; after?: string; maxBytes?: number }): Promise<PipelinePage>;
  /** How many pipelines are stored. */
  count(): Promise<number>;
  get(id: string): Promise<PipelineRecord | undefined>;
  getByName(name: string): Promise<PipelineRecord | undefined>;
  create(record: PipelineRecord): Promise<PipelineRecord>;
  /** undefined when no pipeline has this id. */
  update(id: string, patch: PipelinePatch): Promise<PipelineRecord | undefined>;
  /** false when no pipeline has this id. */
  delete(id: string): Promise<boolean>;
  /** Resolves when the database answers (readiness); throws, as the other methods do, when it cannot. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
