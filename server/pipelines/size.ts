import { ChunkdError } from '../../kernel/errors.js';
import type { PipelineRecord } from '../storage/store.js';

/**
 * What a pipeline takes in storage: the UTF-8 bytes of its steps as JSON (validated, defaults
 * filled in), its name and its description. The store keeps the same sum per row to bound a list
 * page (server/storage/sqlite.ts), so the two agree on any back-end.
 */
export const storedSize = (p: Pick<PipelineRecord, 'name' | 'description' | 'steps'>): number =>
  Buffer.byteLength(JSON.stringify(p.steps)) + Buffer.byteLength(p.name) + Buffer.byteLength(p.description ?? '');

/** A stored pipeline is read back whole on every list page and every execute, so its size is capped when it is written. */
export function checkStoredSize(p: Pick<PipelineRecord, 'name' | 'description' | 'steps'>, max: number): void {
  const size = storedSize(p);
  if (size > max) {
    throw new ChunkdError(
      'TOO_LARGE',
      `The pipeline takes ${size} bytes as stored (its steps as JSON with defaults filled in, its name and description, in UTF-8); the limit is ${max}. Use fewer or smaller steps, or raise --max-pipeline-bytes (CHUNKD_MAX_PIPELINE_BYTES).`,
    );
  }
}
