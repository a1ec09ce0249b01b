import type { TObject } from '#typebox';
import type { OffsetUnit } from '../kernel/offsets.js';
import { readObjectBody } from '../kernel/request.js';
import { compileValidator } from '../kernel/validation.js';
import { PipelineExecute } from './pipelines.js';
import { checkUserMetadata } from './metadata.js';

/**
 * A body check for a pipeline route: read as the plugin routes read theirs (kernel/request.ts
 * readObjectBody), its unknown keys passed to `onIgnored` (named in a header even when the body
 * then fails), defaults filled in.
 * Free of Koa, so a worker runs it too (service/large-bodies/pipeline-job.ts).
 */
export function bodyCheck<T>(schema: TObject) {
  const validate = compileValidator<T>(schema);
  const known = new Set(Object.keys(schema.properties));
  const example = JSON.stringify(((schema as { examples?: unknown[] }).examples ?? [{}])[0]);
  return (raw: unknown, onIgnored: (keys: string[]) => void): T => {
    const read = readObjectBody(raw, known, example);
    if (read.ignored.length) onIgnored(read.ignored);
    return validate(read.body);
  };
}

export type ExecuteBody = {
  text: string | string[];
  offset_unit: OffsetUnit;
  return_type: 'chunks' | 'texts';
  document?: string | string[];
  /** The user's metadata, on every row a write step stores (wire/metadata.ts). */
  metadata?: Record<string, unknown>;
};
const checkExecuteShape = bodyCheck<ExecuteBody>(PipelineExecute);
/** An execute body: its shape, then its metadata's rules a schema cannot state (chunkd's own keys refused by name, its size). */
export const checkExecute = (raw: unknown, onIgnored: (keys: string[]) => void): ExecuteBody => {
  const body = checkExecuteShape(raw, onIgnored);
  if (body.metadata !== undefined) checkUserMetadata(body.metadata, ['body', 'metadata']);
  return body;
};
