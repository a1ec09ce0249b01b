import type { Static } from 'typebox';
import type { PipelineStep } from '../pipelines/schemas.js';

/** A stored pipeline as the API shows it. Steps are stored validated, with their configs' defaults filled in. */
export interface PipelineRecord {
  id: string;
  name: string;
  description: string | null;
  steps: Static<typeof PipelineStep>[];
  created_at: string;
  updated_at: string;
}

export type PipelinePatch = Partial<Pick<PipelineRecord, 'name' | 'description' | 'steps'>> & { updated_at: string };

/**
 * What the pipeline routes need from a database; SQLite implements it (sqlite.ts), another backend
 * can be added beside it. Every method is one atomic operation, so concurrent requests need no
 * locking above it. `create` and `update` throw ChunkdError('CONFLICT') when the name is taken:
 * the database enforces the name's uniqueness, never a check-then-write.
 */
export interface PipelineStore {
  /** Newest first. */
  list(): Promise<PipelineRecord[]>;
  get(id: string): Promise<PipelineRecord | undefined>;
  getByName(name: string): Promise<PipelineRecord | undefined>;
  create(record: PipelineRecord): Promise<PipelineRecord>;
  /** undefined when no pipeline has this id. */
  update(id: string, patch: PipelinePatch): Promise<PipelineRecord | undefined>;
  /** false when no pipeline has this id. */
  delete(id: string): Promise<boolean>;
  close(): Promise<void>;
}
