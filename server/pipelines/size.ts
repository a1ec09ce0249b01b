import { ChunkdError } from '../../kernel/errors.js';
import type { PipelineRecord } from '../storage/store.js';

/**
 * A stored pipeline is read back whole on every list page and every execute, so its size is capped
 * when it is written. Measured as the UTF-8 bytes of the JSON of what is stored (the validated
 * steps, defaults filled in, with the name and description): the same on any back-end.
 */
export function checkStoredSize(p: Pick<PipelineRecord, 'name' | 'description' | 'steps'>, max: number): void {
  const size = Buffer.byteLength(JSON.stringify({ name: p.name, description: p.description, steps: p.steps }));
  if (size > max) {
    throw new ChunkdError(
      'TOO_LARGE',
      `The pipeline takes ${size} bytes as stored (its steps with defaults filled in, name and description, as JSON); the limit is ${max}. Use fewer or smaller steps, or raise --max-pipeline-bytes (CHUNKD_MAX_PIPELINE_BYTES).`,
    );
  }
}
