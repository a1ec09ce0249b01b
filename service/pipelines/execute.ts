import { ChunkdError, isChunkdError, validationError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { emptyStructure } from '../../kernel/chef/document.js';
import type { Registry } from '../../kernel/registry.js';
import { isBlank } from '../../kernel/engine/index.js';
import { parseConfig } from '../../kernel/request.js';
import type { Doc, Recipe, RunnerStep, StructuredDoc, Executor } from '../../kernel/engine/index.js';
import { checkTexts, runnerOf, type Limits } from '../limits.js';
import type { PipelineRecord } from '../storage/store.js';
import { type StoresService } from '../stores/service.js';
import { repeatedId } from '../stores/stores.js';
import { isAutoChef, namedPlugin, type Step } from './steps.js';
import { writeSteps, type WriteStepShape } from './write-step.js';

/**
 * A pipeline as it is run: a stored one, or steps run under another name (a job's own steps), which
 * then say what to do when a step no longer fits, since no PUT /v1/pipelines/{id} route reaches them.
 */
export type RunPipeline = PipelineRecord & { staleAdvice?: string };

export interface ExecuteDeps {
  /** Only find() is used: a worker passes the few plugins a pipeline names (service/large-bodies/pipeline-job.ts). */
  registry: Pick<Registry, 'find'>;
  executor: Executor;
  settings: Limits;
  /** An offLoop chef always runs in the extraction pool, under --max-extract-ms (the CLI, whose executor runs inline). */
  isolate?: boolean;
  /** The server's services: a write step writes through its stores (absent in a worker, which never writes). */
  services?: { stores?: StoresService };
}

/** Document i's id in a store, or undefined for its text's digest. */
export type DocumentIds = (index: number) => string | undefined;
export const noDocumentIds: DocumentIds = () => undefined;

/** Document i's name and user metadata (service/stores/stores.ts DocumentMeta), or undefined for none. */
export type DocumentMetas = (index: number) => Record<string, unknown> | undefined;

/**
 * The metadata a run's body gives its documents: `metadata` (the user's keys, wire/metadata.ts)
 * on every one, and an uploaded file's name as `name` on it.
 */
export function documentMetas(body: { metadata?: Record<string, unknown> }, file?: StoredDocument): DocumentMetas {
  const meta = { ...body.metadata, ...(file?.name ? { name: file.name } : {}) };
  return Object.keys(meta).length ? () => meta : () => undefined;
}

/**
 * The ids a run's body gives its documents: `document` (a string for one text, a list for a list),
 * else an uploaded file's id. A list of ids is one per text, each its own: a shorter list would
 * leave texts under their digests, a repeated id keep one text of two (422, naming the entry).
 */
export function documentIds(body: { document?: string | string[] }, file: StoredDocument | undefined, texts: number): DocumentIds {
  const { document } = body;
  if (typeof document === 'string' && texts > 1)
    throw validationError(['body', 'document'], `document is one id for ${texts} texts: give a list of ${texts} ids, one per text (or none).`);
  if (Array.isArray(document)) {
    if (document.length !== texts)
      throw validationError(['body', 'document'], `document lists ${document.length} ids for ${texts} texts: give one id per text, in the order of the texts.`);
    const repeat = repeatedId(document);
    if (repeat)
      throw validationError(
        ['body', 'document', repeat.at],
        `document ${repeat.at} has the id of document ${repeat.first} ('${document[repeat.at]!.slice(0, 100)}'): a store keeps one document per id, so one text would replace the other. Give each text its own id.`,
      );
    return (i) => document[i];
  }
  const one = document ?? file?.id;
  return (i) => (i === 0 ? one : undefined);
}

/** Whether a pipeline ends in a write step (it then runs where the store connections are: the main thread). */
export const writes = (pipeline: Pick<PipelineRecord, 'steps'>): boolean => pipeline.steps.some((s) => s.type === 'write');

/**
 * A pipeline run's JSON answer, as bytes: the steps in order through the document runner
 * (kernel/engine/runner.ts) and the limits the plugin endpoints use. A string gives the chunks of that
 * text, a list one list of chunks per text.
 */
export async function answerPipeline(
  pipeline: PipelineRecord,
  body: { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts'; document?: string | string[]; metadata?: Record<string, unknown> },
  deps: ExecuteDeps,
  signal?: AbortSignal,
  file?: StoredDocument,
): Promise<Uint8Array[]> {
  const { texts, recipe } = await bodyRecipe(pipeline, body, deps, file);
  return runnerOf(deps.executor, deps.settings, deps.isolate).answer(recipe, pipelineDocs(texts, file), { list: Array.isArray(body.text), signal });
}

/** A run body's texts (checked against the limits) and the recipe that runs them: the body's ids and metadata on its documents. */
export async function bodyRecipe(
  pipeline: RunPipeline,
  body: { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts'; document?: string | string[]; metadata?: Record<string, unknown> },
  deps: ExecuteDeps,
  file?: StoredDocument,
): Promise<{ texts: string[]; recipe: Recipe }> {
  checkTexts(body.text, deps.settings);
  const texts = Array.isArray(body.text) ? body.text : [body.text];
  const ids = documentIds(body, file, texts.length);
  const recipe = await pipelineRecipe(pipeline, body.offset_unit, body.return_type, deps, !texts.every(isBlank), ids, documentMetas(body, file));
  return { texts, recipe };
}

/**
 * A pipeline's steps as a recipe, every step resolved and (when `build`) built once: a stale step
 * or a refused config is the whole request's 400. A process step is the recipe's first step: the
 * runner runs its chef where it places the work (kernel/engine/runner.ts).
 */
export async function pipelineRecipe(
  pipeline: RunPipeline,
  unit: OffsetUnit,
  returnType: 'chunks' | 'texts',
  deps: Pick<ExecuteDeps, 'registry' | 'services'>,
  build = true,
  documentId: DocumentIds = noDocumentIds,
  documentMeta?: DocumentMetas,
): Promise<Recipe> {
  // An auto process step runs nothing: each document was read by its type's chef when it came in (steps.ts AUTO_CHEF).
  const steps = pipeline.steps.flatMap((step, i) =>
    step.type === 'write' || isAutoChef(step) ? [] : [resolveStep(deps.registry, pipeline, step, i)],
  ) as RunnerStep[];
  const w = pipeline.steps.findIndex((s) => s.type === 'write');
  if (w >= 0) {
    const stores = deps.services?.stores;
    steps.push(
      ...(await writeSteps(pipeline.steps[w] as WriteStepShape, steps, {
        registry: deps.registry,
        stores,
        documentId,
        ...(documentMeta ? { documentMeta } : {}),
        stale: staleStep(pipeline, w),
      })),
    );
  }
  if (build) for (const { plugin, config, target } of steps) if (!target && plugin.kind !== 'chef') await plugin.instance(config);
  return { steps, unit, returnType };
}

/** Whether the pipeline has a process step (its documents are a chef's: text and structure). */
export const processes = (pipeline: PipelineRecord): boolean => pipeline.steps.some((s) => s.type === 'process');

/**
 * The documents a pipeline runs on: the texts as they come, or a stored file's text with the
 * structure its chef found at upload (a process step of that same chef does not read it again).
 */
export function pipelineDocs(texts: string[], file?: StoredDocument): Doc[] {
  return file && texts.length === 1 ? [{ text: texts[0]!, structure: storedStructure(file), chef: file.format }] : texts;
}

/** A step that no longer fits this server: a 400 that says to update the pipeline. */
const staleStep = (pipeline: RunPipeline, i: number) => (why: string) =>
  new ChunkdError(
    'BAD_REQUEST',
    `Step ${i} of pipeline '${pipeline.name}' ${why}: ${pipeline.staleAdvice ?? `update the pipeline's steps (PUT /v1/pipelines/${pipeline.id})`}.`,
  );

/** A stored file as a run by `file` sees it: its id, the chef that read it, and the structure it found. */
export interface StoredDocument {
  id?: string;
  /** The file's name as uploaded (or its path under an ingested folder): its rows' metadata.name. */
  name?: string;
  format: string;
  /** The structure's JSON bytes as stored (in a buffer of their own: moved to a worker), parsed by the runner where the document runs. */
  structureJson?: Uint8Array;
}

/** A stored file's structure as the runner takes it (kernel/engine/runner.ts StructuredDoc): its JSON, or none found. */
export const storedStructure = (file: StoredDocument): StructuredDoc['structure'] => (file.structureJson ? { json: file.structureJson } : emptyStructure());

/**
 * Steps were checked when written; this server may since have lost a plugin or changed its
 * schema. The stored config is checked again (which also fills in any field added since), and a
 * step that no longer fits is a 400 that says to update the pipeline.
 */
export function resolveStep(registry: ExecuteDeps['registry'], pipeline: RunPipeline, step: Step, i: number) {
  const stale = staleStep(pipeline, i);
  const named = namedPlugin(step);
  if (!named) throw stale('is a write step, which runs only as the last step');
  const { kind, name } = named;
  const plugin = registry.find(kind, name);
  if (!plugin) throw stale(`uses the ${kind} '${name}', which this server does not have`);
  try {
    return { plugin, config: parseConfig(plugin, step.config, ['steps', i, 'config']) };
  } catch (e) {
    if (isChunkdError(e) && e.code === 'VALIDATION') throw stale(`has a config the ${kind} '${name}' no longer accepts (${e.message})`);
    throw e;
  }
}
