/**
 * The body of POST /v1/evaluate, read and checked: on the calling thread for a small body, in a
 * worker for a large one (service/evaluation/body-job.ts), so documents of megabytes are never
 * decoded or parsed on the event loop. What comes back is the checked body, copied (a structured
 * clone copies its strings natively; nothing is parsed or scanned here).
 */
import { ChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { WorkerPool } from '../../kernel/engine/index.js';
import { bodyCheck } from '../../wire/body-check.js';
import type { Step } from '../pipelines/steps.js';
import type { RawRequest } from '../large-bodies/answer.js';
import { type ErrorData } from '../large-bodies/shared.js';
import { invalidJsonError } from '../../wire/strict-json.js';
import type { LocateMode } from './locate.js';
import type { EvalRetriever, EvalQuestion } from './spec.js';
import { EvaluateRequest } from '../../wire/evaluation.js';
import { moduleBeside } from '../../kernel/paths.js';

export interface EvaluateBody {
  documents: { id: string; text?: string; file?: string }[];
  questions: EvalQuestion[];
  candidates: (Step[] | string)[];
  retriever: EvalRetriever;
  embedding_model: string;
  k: number | number[];
  locate: LocateMode;
  offset_unit: OffsetUnit;
  detail: boolean;
}

/** Check a parsed body (defaults filled in); its unknown keys go to `onIgnored`. */
export const readEvaluateBody = bodyCheck<EvaluateBody>(EvaluateRequest);

export const EVALUATE_BODY_JOB = moduleBeside(import.meta.url, './body-job');

export type EvaluateBodyResult = { invalidJson: string } | { body: EvaluateBody; ignored: string[] } | { error: ErrorData; ignored: string[] };

/** A large raw body, moved to a worker that parses and checks it: answered as the inline check would (400 for bad JSON, 422 for a bad body). */
export async function evaluateBodyPooled({ body, signal, onIgnored }: RawRequest, pool: WorkerPool): Promise<EvaluateBody> {
  const result = await pool.job<EvaluateBodyResult>(EVALUATE_BODY_JOB, { body }, [body.buffer as ArrayBuffer], signal);
  if ('invalidJson' in result) throw invalidJsonError(result.invalidJson);
  if (result.ignored.length) onIgnored(result.ignored);
  if ('error' in result) throw new ChunkdError(result.error.code, result.error.detail, result.error.headers);
  return result.body;
}
