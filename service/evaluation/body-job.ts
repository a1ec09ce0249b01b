/** The worker side of a large evaluation body (service/evaluation/body.ts): parsed and checked here, the checked body back. */
import type { Job } from '../../kernel/engine/index.js';
import { errorData } from '../large-bodies/shared.js';
import { parseJsonBody } from '../../wire/strict-json.js';
import { readEvaluateBody, type EvaluateBodyResult } from './body.js';

const job: Job<{ body: Uint8Array }, EvaluateBodyResult> = async ({ body }) => {
  const parsed = parseJsonBody(body);
  if ('invalidJson' in parsed) return { value: parsed };
  let ignored: string[] = [];
  try {
    return { value: { body: readEvaluateBody(parsed.value, (keys) => (ignored = keys)), ignored } };
  } catch (e) {
    return { value: { error: errorData(e), ignored } };
  }
};
export default job;
