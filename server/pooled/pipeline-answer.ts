/**
 * The main-thread side of a pooled pipeline run: the raw body (server/middleware/raw-body.ts) is
 * moved to a worker (server/pooled/pipeline-job.ts), which answers with the response bytes.
 */
import type { Context } from 'koa';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { Registry } from '../../kernel/registry.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import type { Limits } from '../limits.js';
import { STEP_KINDS } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import type { PipelinePayload, PipelineResult } from './pipeline-job.js';
import { errorData, invalidJsonError, limitsOf, parseJsonBody, sendJsonBytes } from './wire.js';

export const PIPELINE_JOB = new URL(`./pipeline-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * Answer a pipeline execute from its raw body, as the inline route would. False when the worker
 * handed a batch back (see PipelineResult): ctx.request.body then holds the parsed body, for the
 * inline route to run.
 */
export async function answerPipelinePooled(
  ctx: Context,
  pool: WorkerPool,
  find: () => Promise<PipelineRecord>,
  registry: Registry,
  limits: Limits,
): Promise<boolean> {
  const body = ctx.state.rawBody as Buffer;
  ctx.state.rawBody = undefined; // moved: detached on this thread from here on
  let pipeline: PipelinePayload['pipeline'];
  try {
    pipeline = await find();
  } catch (e) {
    if (!isChunkdError(e) || e.code !== 'NOT_FOUND') throw e;
    pipeline = { notFound: errorData(e) };
  }
  const sources: Record<string, string> = {};
  for (const step of 'steps' in pipeline ? pipeline.steps : []) {
    const kind = STEP_KINDS[step.type];
    const plugin = registry.find(kind, step[kind] ?? '');
    if (plugin) sources[`${kind}:${plugin.name}`] = plugin.source;
  }
  const payload: PipelinePayload = { body, pipeline, sources, limits: limitsOf(limits), threads: pool.threads };
  const result = await pool.job<PipelineResult>(PIPELINE_JOB, payload, [body.buffer as ArrayBuffer], ctx.state.signal as AbortSignal | undefined);
  if ('invalidJson' in result) throw invalidJsonError(result.invalidJson);
  if ('asBefore' in result) {
    ctx.request.body = (parseJsonBody(result.asBefore) as { value: unknown }).value;
    return false;
  }
  setIgnoredKeys(ctx, result.ignored);
  if ('error' in result) throw new ChunkdError(result.error.code, result.error.detail, result.error.headers);
  sendJsonBytes(ctx, [result.bytes]);
  return true;
}
