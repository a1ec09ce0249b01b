import type { TObject } from 'typebox';
import { validationError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { unknownKeys } from '../../kernel/request.js';
import { compileValidator } from '../../kernel/validation.js';
import { PipelineExecute } from './schemas.js';

/**
 * A body check for a pipeline route: a JSON object, its unknown keys passed to `onIgnored` (named
 * in a header, as on the plugin routes, even when the body then fails), defaults filled in.
 * Free of Koa, so a worker runs it too (server/pooled/pipeline-job.ts).
 */
export function bodyCheck<T>(schema: TObject) {
  const validate = compileValidator<T>(schema);
  const known = new Set(Object.keys(schema.properties));
  return (body: unknown, onIgnored: (keys: string[]) => void): T => {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      throw validationError(['body'], 'The request body must be a JSON object.', 'model_attributes_type');
    }
    const ignored = unknownKeys(body as Record<string, unknown>, known);
    if (ignored.length) onIgnored(ignored);
    return validate(body);
  };
}

export type ExecuteBody = { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts' };
export const checkExecute = bodyCheck<ExecuteBody>(PipelineExecute);
