/**
 * The worker side of a pooled pipeline run (server/pooled/pipeline-answer.ts is the main-thread
 * side): a large body arrives as bytes and is parsed, checked, run through the pipeline's steps
 * and serialized here, through the very executePipeline the inline route calls. A batch worth
 * splitting over the pool is handed back instead, to run as before (the max-chunks check between
 * steps counts the whole batch, so its steps cannot run apart in separate workers).
 */
import type { Kind } from '../../kernel/plugin.js';
import { textWeight, split } from '../../kernel/pool.js';
import { asTexts, inline } from '../../kernel/run.js';
import type { Job } from '../../kernel/worker.js';
import type { Limits } from '../limits.js';
import { checkExecute } from '../pipelines/body.js';
import { executePipeline } from '../pipelines/execute.js';
import type { PipelineRecord } from '../storage/store.js';
import { encode, errorData, moved, parseJsonBody, type ErrorData } from './wire.js';

export interface PipelinePayload {
  body: Uint8Array;
  /** The pipeline, or the 404 its id gets: answered once the body is known to be JSON, as inline. */
  pipeline: PipelineRecord | { notFound: ErrorData };
  /** The source of each plugin the steps name, keyed `kind:name`; a plugin this server lacks is absent. */
  sources: Record<string, string>;
  limits: Limits;
  threads: number;
}

export type PipelineResult =
  /** The response body: the exact bytes Koa would send for the result. */
  | { bytes: Uint8Array; ignored: string[] }
  | { error: ErrorData; ignored: string[] }
  | { invalidJson: string }
  /** A batch worth splitting over the pool: the body's bytes, moved back, for the main thread to run as before. */
  | { asBefore: Uint8Array };

const job: Job<PipelinePayload, PipelineResult> = async ({ body, pipeline, sources, limits, threads }, load) => {
  const parsed = parseJsonBody(body);
  if ('invalidJson' in parsed) return moved<PipelineResult>(parsed);
  if ('notFound' in pipeline) return moved<PipelineResult>({ error: pipeline.notFound, ignored: [] });
  let ignored: string[] = [];
  try {
    const req = checkExecute(parsed.value, (keys) => (ignored = keys));
    if (Array.isArray(req.text) && (split(req.text, textWeight, threads)?.length ?? 0) > 1) return moved<PipelineResult>({ asBefore: body }, [body]);
    const plugins = new Map(await Promise.all(Object.entries(sources).map(async ([key, source]) => [key, await load(source)] as const)));
    const registry = { find: (kind: Kind, name: string) => plugins.get(`${kind}:${name}`) };
    const result = await executePipeline(pipeline, req.text, req.offset_unit, { registry, executor: inline, settings: limits });
    const bytes = encode(req.return_type === 'texts' ? asTexts(result) : result);
    return moved<PipelineResult>({ bytes, ignored }, [bytes]);
  } catch (e) {
    return moved<PipelineResult>({ error: errorData(e), ignored });
  }
};
export default job;
