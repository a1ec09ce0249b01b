/**
 * Writing a pipeline, the same for every pipeline API (/v1/pipelines by id, /v1/pipeline by slug):
 * its stored size held to --max-pipeline-bytes, nothing stored once the request was abandoned
 * (checking steps may load slow models), ids and timestamps made here.
 */
import { randomUUID } from 'node:crypto';
import { validationError } from '../../kernel/errors.js';
import type { PipelinePatch, PipelineRecord, PipelineStore } from '../storage/store.js';
import { timestamp } from './clock.js';
import { checkStoredSize } from './size.js';

export interface PipelineWriteDeps {
  store: PipelineStore;
  maxPipelineBytes: number;
}

export type PipelineInput = Pick<PipelineRecord, 'name' | 'description' | 'steps'>;

/** Store a new pipeline (its name taken: the store's 409). */
export function createPipeline({ store, maxPipelineBytes }: PipelineWriteDeps, input: PipelineInput, signal?: AbortSignal): Promise<PipelineRecord> {
  checkStoredSize(input, maxPipelineBytes);
  signal?.throwIfAborted();
  const now = timestamp();
  return store.create({ id: randomUUID(), ...input, created_at: now, updated_at: now });
}

/**
 * Apply `changes` to a stored pipeline: undefined when it was deleted meanwhile. No change at all
 * is a 422 that names the fields the caller's API takes (`fields`).
 */
export function updatePipeline(
  { store, maxPipelineBytes }: PipelineWriteDeps,
  stored: PipelineRecord,
  changes: Omit<PipelinePatch, 'updated_at'>,
  fields: string,
  signal?: AbortSignal,
): Promise<PipelineRecord | undefined> {
  if (Object.keys(changes).length === 0) throw validationError(['body'], `Nothing to update: send any of ${fields}.`, 'missing');
  checkStoredSize({ ...stored, ...changes }, maxPipelineBytes);
  signal?.throwIfAborted();
  return store.update(stored.id, { ...changes, updated_at: timestamp() });
}
