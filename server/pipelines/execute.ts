import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Registry } from '../../kernel/registry.js';
import { isBlank, parseConfig, type Executor } from '../../kernel/run.js';
import type { Recipe } from '../../kernel/runner.js';
import { checkTexts, runnerOf, type Limits } from '../limits.js';
import type { PipelineRecord } from '../storage/store.js';
import { STEP_KINDS, type Step } from './steps.js';

export interface ExecuteDeps {
  /** Only find() is used: a worker passes the few plugins a pipeline names (server/pooled/pipeline-job.ts). */
  registry: Pick<Registry, 'find'>;
  executor: Executor;
  settings: Limits;
}

/**
 * A pipeline run's JSON answer, as bytes: the steps in order through the document runner
 * (kernel/runner.ts) and the limits the plugin endpoints use. A string gives the chunks of that
 * text, a list one list of chunks per text.
 */
export async function answerPipeline(
  pipeline: PipelineRecord,
  body: { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts' },
  deps: ExecuteDeps,
  signal?: AbortSignal,
): Promise<Uint8Array[]> {
  checkTexts(body.text, deps.settings);
  const texts = Array.isArray(body.text) ? body.text : [body.text];
  const recipe = await pipelineRecipe(pipeline, body.offset_unit, body.return_type, deps, !texts.every(isBlank));
  return runnerOf(deps.executor, deps.settings).answer(recipe, texts, { list: Array.isArray(body.text), signal });
}

/**
 * The same run as chunk objects, for a caller that works on them (evaluation scores them): the
 * runner's bytes parsed back, under the same caps. A string gives Chunk[], a list one Chunk[] per text.
 */
export async function executePipeline(pipeline: PipelineRecord, input: string | string[], unit: OffsetUnit, deps: ExecuteDeps, signal?: AbortSignal): Promise<Chunk[] | Chunk[][]> {
  const parts = await answerPipeline(pipeline, { text: input, offset_unit: unit, return_type: 'chunks' }, deps, signal);
  return JSON.parse(Buffer.concat(parts).toString('utf8')) as Chunk[] | Chunk[][];
}

/** A pipeline's steps as a recipe, every step resolved and (when `build`) built once: a stale step or a refused config is the whole request's 400. */
export async function pipelineRecipe(pipeline: PipelineRecord, unit: OffsetUnit, returnType: 'chunks' | 'texts', deps: Pick<ExecuteDeps, 'registry'>, build = true): Promise<Recipe> {
  const steps = pipeline.steps.map((step, i) => resolveStep(deps.registry, pipeline, step, i));
  if (build) for (const { plugin, config } of steps) await plugin.instance(config);
  return { steps, unit, returnType };
}

/**
 * Steps were checked when written; this server may since have lost a plugin or changed its
 * schema. The stored config is checked again (which also fills in any field added since), and a
 * step that no longer fits is a 400 that says to update the pipeline.
 */
export function resolveStep(registry: ExecuteDeps['registry'], pipeline: PipelineRecord, step: Step, i: number) {
  const kind = STEP_KINDS[step.type];
  const name = step[kind] ?? '';
  const stale = (why: string) =>
    new ChunkdError('BAD_REQUEST', `Step ${i} of pipeline '${pipeline.name}' ${why}: update the pipeline's steps (PUT /v1/pipelines/${pipeline.id}).`);
  const plugin = registry.find(kind, name);
  if (!plugin) throw stale(`uses the ${kind} '${name}', which this server does not have`);
  try {
    return { plugin, config: parseConfig(plugin, step.config, ['steps', i, 'config']) };
  } catch (e) {
    if (isChunkdError(e) && e.code === 'VALIDATION') throw stale(`has a config the ${kind} '${name}' no longer accepts (${e.message})`);
    throw e;
  }
}
