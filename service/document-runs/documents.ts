/**
 * A batch request as documents run one at a time: what NDJSON streaming (server/stream/ndjson.ts)
 * and `chunkd chunk` (cli/chunk.ts) share. Everything that can be wrong with the whole
 * request (its body, its limits, a config the plugin refuses) is checked when the documents are
 * made, before anything is answered; each document then runs through the document runner
 * (kernel/engine/runner.ts) the JSON answer uses, so a line holds what the JSON answer holds at that
 * index, as the bytes the runner serialized. Free of Koa.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Maybe, Executor, Doc, Recipe, Runner, StructuredDoc } from '../../kernel/engine/index.js';
import type { Plugin } from '../../kernel/registry.js';
import { chunkLists, type ParsedRequest } from '../../kernel/request.js';
import { isBlank, docWeight } from '../../kernel/engine/index.js';
import { checkChunks, checkTexts, runnerOf, type Limits } from '../limits.js';
import { bodyRecipe, pipelineDocs, type ExecuteDeps, type StoredDocument } from '../pipelines/execute.js';
import type { PipelineRecord } from '../storage/store.js';

/** A batch split into documents, each run by the document runner (kernel/engine/runner.ts) with `recipe`. */
export interface Documents {
  total: number;
  /** Characters of document i (for progress in bytes per second). */
  size(index: number): number;
  runner: Runner;
  recipe: Recipe;
  docs: Doc[];
  /** The request held a list: its JSON answer is a list (runner.answer's `list`). */
  list: boolean;
}

const list = (input: string | string[]) => (Array.isArray(input) ? input : [input]);

function documents(runner: Runner, recipe: Recipe, docs: Doc[], list: boolean): Documents {
  return { total: docs.length, size: (i) => docWeight(docs[i]!), runner, recipe, docs, list };
}

/** Documents a worker parsed and checked (service/large-bodies/): only the steps' configs are built here, so a refused one is the whole request's error. */
export async function preparedDocuments(recipe: Recipe, docs: Doc[], list: boolean, executor: Executor, limits: Limits): Promise<Documents> {
  if (docs.some((d) => typeof d !== 'string' || !isBlank(d))) for (const { plugin, config, target } of recipe.steps) if (!target) await plugin.instance(config);
  return documents(runnerOf(executor, limits), recipe, docs, list);
}

/** A chunker request (a single text is a batch of one); `structure`: the single text is a processed document (an uploaded file's). */
export function chunkerDocuments(
  plugin: Plugin,
  req: ParsedRequest,
  executor: Executor,
  limits: Limits,
  structure?: StructuredDoc['structure'],
): Maybe<Documents> {
  const input = req.input as string | string[];
  checkTexts(input, limits);
  const texts = list(input);
  const docs: Doc[] = structure && texts.length === 1 ? [{ text: texts[0]!, structure }] : texts;
  const made = () =>
    documents(runnerOf(executor, limits), { steps: [{ plugin, config: req.config }], unit: req.unit, returnType: req.returnType }, docs, Array.isArray(input));
  // A config the plugin refuses (a cross-field rule) is the whole request's error, not every document's; a built one is not waited for.
  return texts.every(isBlank) || plugin.builtInstance(req.config) ? made() : plugin.instance(req.config).then(made);
}

/** A refinery request: each list of a list of lists is a document (a flat list of chunks is a batch of one). */
export function refineryDocuments(plugin: Plugin, req: ParsedRequest, executor: Executor, limits: Limits): Maybe<Documents> {
  const input = req.input as (Chunk | Chunk[])[];
  checkChunks(input, limits);
  const { lists, nested } = chunkLists(input);
  const made = () =>
    documents(runnerOf(executor, limits), { steps: [{ plugin, config: req.config }], unit: req.unit, returnType: req.returnType }, lists, nested);
  return lists.every((l) => l.length === 0) || plugin.builtInstance(req.config) ? made() : plugin.instance(req.config).then(made);
}

/**
 * A pipeline run: each text goes through every step on its own, a process step first (the runner
 * runs its chef where it places the document); an uploaded file (`file`) comes with the structure
 * its chef found at upload.
 */
export async function pipelineDocuments(
  pipeline: PipelineRecord,
  body: { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts'; document?: string | string[]; metadata?: Record<string, unknown> },
  deps: ExecuteDeps,
  signal?: AbortSignal,
  file?: StoredDocument,
): Promise<Documents> {
  const { texts, recipe } = await bodyRecipe(pipeline, body, deps, file);
  return documents(runnerOf(deps.executor, deps.settings, deps.isolate), recipe, pipelineDocs(texts, file), Array.isArray(body.text));
}

/** One answered document: its result as JSON bytes (a list of chunks or texts), or the error body the JSON answer would have had for it alone. */
export type DocumentLine = { index: number; bytes: Uint8Array } | { index: number; error: ErrorEnvelope };
export type ErrorEnvelope = ReturnType<ChunkdError['toJSON']>;

export interface EachOptions {
  /** Documents in flight at once (the worker threads; 1 when everything runs on this thread). */
  concurrency: number;
  /** Aborted: no document starts any more, and those running are given the signal (pool tasks are cancelled). */
  signal?: AbortSignal;
  /** A document failed with something other than a ChunkdError (a bug): the line says only INTERNAL. */
  onBug?(error: unknown): void;
}

/**
 * Run every document through the runner, handing each line to `onLine` as its document finishes,
 * in completion order (the line carries its index). A failing document gives an error line and
 * the others go on. Resolves once no document is running; a document cancelled by the signal
 * gives no line.
 */
export async function eachDocument(
  docs: Documents,
  onLine: (line: DocumentLine) => void | Promise<void>,
  { concurrency, signal, onBug }: EachOptions,
): Promise<void> {
  try {
    await docs.runner.each(
      docs.recipe,
      docs.docs,
      (index, r) => onLine('bytes' in r ? { index, bytes: r.bytes } : { index, error: envelope('error' in r ? r.error : r.bug, onBug) }),
      { concurrency, signal },
    );
  } catch (e) {
    if (signal?.aborted) return; // cancelled, not failed: the caller says why
    throw e;
  }
}

/** An error as the error middleware would answer it (kernel/errors.ts), never a stack. */
export function envelope(e: unknown, onBug?: (error: unknown) => void): ErrorEnvelope {
  if (isChunkdError(e)) return e.toJSON();
  onBug?.(e);
  return new ChunkdError('INTERNAL', 'Internal server error. The server log has the details.').toJSON();
}
