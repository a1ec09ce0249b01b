import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { emptyStructure, type Processed, type Structure } from '../../kernel/chef/document.js';
import { runChef } from '../../kernel/chef/run.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { parseConfig, runChunker, runRefinery, type Executor } from '../../kernel/run.js';
import { checkChunks, checkTexts, LIMIT_NAMES, type Limits } from '../limits.js';
import type { PipelineRecord } from '../storage/store.js';
import { STEP_KINDS, type Step } from './steps.js';

export interface ExecuteDeps {
  /** Only find() is used: a worker passes the few plugins a pipeline names (server/pooled/pipeline-job.ts). */
  registry: Pick<Registry, 'find'>;
  executor: Executor;
  settings: Limits;
}

/**
 * Run a stored pipeline's steps in order, through the very functions and limits the plugin
 * endpoints use: the chunk step turns the text (or texts) into chunks, each refine step takes them
 * on. A string gives Chunk[], a list gives one Chunk[] per text.
 */
export async function executePipeline(
  pipeline: PipelineRecord,
  input: string | string[],
  unit: OffsetUnit,
  { registry, executor, settings }: ExecuteDeps,
  signal?: AbortSignal,
  file?: StoredDocument,
): Promise<Chunk[] | Chunk[][]> {
  checkTexts(input, settings);
  let result: Chunk[] | Chunk[][] = [];
  // Without a process step, a text is used as it comes and a file as its chef read it at upload.
  let structures: (Structure | undefined)[] | undefined = file?.structure ? [file.structure] : undefined;
  for (const [i, step] of pipeline.steps.entries()) {
    const { plugin, config } = resolveStep(registry, pipeline, step, i);
    if (step.type === 'process') {
      const docs = await processTexts(plugin, config, Array.isArray(input) ? input : [input], { executor, settings, signal, file });
      input = Array.isArray(input) ? docs.map((d) => d.text) : docs[0]!.text;
      structures = docs.map((d) => d.structure);
    } else if (step.type === 'chunk') {
      result = await runChunker(plugin, config, input, unit, executor, signal, structures);
    } else {
      checkChunks(result, settings);
      result = await runRefinery(plugin, config, result, executor, signal);
    }
  }
  return result;
}

/** A stored file as a pipeline run by `file` sees it: the chef that read it, and the structure it found. */
export interface StoredDocument {
  format: string;
  structure?: Structure;
}

/**
 * A process step on each text: the chef's document. A file already read by this very chef at
 * upload is not read again (its stored text and structure are the chef's answer).
 */
async function processTexts(
  chef: Plugin,
  config: Record<string, unknown>,
  texts: string[],
  { executor, settings, signal, file }: { executor: Executor; settings: Limits; signal?: AbortSignal; file?: StoredDocument },
): Promise<Processed[]> {
  if (file && file.format === chef.name && texts.length === 1) return [{ text: texts[0]!, structure: file.structure ?? emptyStructure(), metadata: {} }];
  const out: Processed[] = [];
  for (const text of texts) {
    signal?.throwIfAborted();
    const doc = await runChef(chef, config, { text }, { executor, signal, limits: { maxTextChars: settings.maxTextChars }, limitNames: LIMIT_NAMES });
    out.push(doc);
  }
  checkTexts(out.map((d) => d.text), settings);
  return out;
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
