/**
 * The main-thread side of a pooled pipeline run: the raw body (server/middleware/body.ts) is
 * moved to a worker (server/pooled/pipeline-job.ts), which answers with the response bytes; a
 * batch worth splitting runs step by step, one job per group, its chunks never parsed here.
 */
import type { Context } from 'koa';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { Registry } from '../../kernel/registry.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkChunkCount, type Limits } from '../limits.js';
import { STEP_KINDS } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import { joinLists } from './answer.js';
import type { PipelineGroupPayload, PipelinePayload, PipelineResult } from './pipeline-job.js';
import { errorData, invalidJsonError, limitsOf, sendJsonBytes } from './wire.js';

export const PIPELINE_JOB = new URL(`./pipeline-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/**
 * Answer a pipeline execute from its raw body, as the inline route would; with `envelope`, the
 * result is that key's value in an object (`{"chunks": …}`); with `slug`, the body and the answer
 * are a slug run's (server/pipelines/slug-run.ts: a list of texts answers one flat list).
 */
export async function answerPipelinePooled(
  ctx: Context,
  pool: WorkerPool,
  find: () => Promise<PipelineRecord>,
  registry: Registry,
  limits: Limits,
  envelope?: string,
  slug = false,
): Promise<void> {
  const send = (parts: Uint8Array[]) => sendJsonBytes(ctx, envelope === undefined ? parts : [encoder.encode(`{${JSON.stringify(envelope)}:`), ...parts, CLOSE]);
  const body = ctx.state.rawBody as Buffer;
  ctx.state.rawBody = undefined; // moved: detached on this thread from here on
  const signal = ctx.state.signal as AbortSignal | undefined;
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
  const payload: PipelinePayload = { step: 'request', body, pipeline, sources, limits: limitsOf(limits), threads: pool.threads, slug };
  const result = await pool.job<PipelineResult>(PIPELINE_JOB, payload, [body.buffer as ArrayBuffer], signal);
  if ('invalidJson' in result) throw invalidJsonError(result.invalidJson);
  if ('ignored' in result) setIgnoredKeys(ctx, result.ignored);
  if ('error' in result) throw fromData(result.error);
  if ('bytes' in result) return send([result.bytes]);
  if (!('groups' in result) || !('steps' in pipeline)) throw new Error('A pooled pipeline job gave no answer.');

  // A split batch: each step on every group at once, as executePipeline runs a step over the pool.
  let groups = result.groups;
  let count = 0;
  // The text index each group starts at, for a flat answer's metadata.document (given to the last step only).
  const firsts = result.sizes.map((_, g) => result.sizes.slice(0, g).reduce((a, b) => a + b, 0));
  for (const [index, step] of pipeline.steps.entries()) {
    if (step.type === 'refine') checkChunkCount(count, limits);
    const last = index === pipeline.steps.length - 1;
    const texts = last && result.returnType === 'texts';
    const parts = await Promise.all(
      groups.map((items, g) => {
        const job: PipelineGroupPayload = { step: 'group', pipeline, sources, index, items, unit: result.unit, texts, ...(last && result.flat ? { document: firsts[g] } : {}) };
        return pool.job<PipelineResult>(PIPELINE_JOB, job, [items.buffer as ArrayBuffer], signal);
      }),
    );
    const failed = parts.find((p) => 'error' in p);
    if (failed && 'error' in failed) throw fromData(failed.error);
    groups = parts.map((p) => (p as { items: Uint8Array }).items);
    count = parts.reduce((n, p) => n + (p as { count: number }).count, 0);
  }
  // A flat answer's groups may be empty lists, which joinLists cannot join: they add nothing.
  const lists = result.flat ? groups.filter((g) => g.length > 2) : groups;
  send(lists.length ? joinLists(lists) : [encoder.encode('[]')]);
}

const encoder = new TextEncoder();
const CLOSE = encoder.encode('}');

const fromData = (e: { code: ChunkdError['code']; detail: ChunkdError['detail']; headers: Record<string, string> }) => new ChunkdError(e.code, e.detail, e.headers);
