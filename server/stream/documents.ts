/**
 * A batch request as documents run one at a time: what NDJSON streaming (server/stream/ndjson.ts)
 * and `chunkd chunk` (cli/chunk.ts) share. Everything that can be wrong with the whole
 * request (its body, its limits, a config the plugin refuses) is checked when the documents are
 * made, before anything is answered; each document then runs through the very functions the JSON
 * answer uses (runChunker, runRefinery, executePipeline), so a line holds what the JSON answer
 * holds at that index. Free of Koa.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Plugin } from '../../kernel/registry.js';
import { asTexts, chunkLists, isBlank, runChunker, runRefinery, type Executor, type ParsedRequest } from '../../kernel/run.js';
import { checkChunks, checkTexts, type Limits } from '../limits.js';
import { executePipeline, resolveStep, type ExecuteDeps } from '../pipelines/execute.js';
import type { PipelineRecord } from '../storage/store.js';

/** A batch split into documents: `run(i)` answers document i's chunks (or texts), as the JSON answer would at index i. */
export interface Documents {
  total: number;
  /** Characters of document i (for progress in bytes per second). */
  size(index: number): number;
  run(index: number, signal?: AbortSignal): Promise<Chunk[] | string[]>;
}

const shaped = (returnType: 'chunks' | 'texts', chunks: Chunk[]) => (returnType === 'texts' ? (asTexts(chunks) as string[]) : chunks);
const list = (input: string | string[]) => (Array.isArray(input) ? input : [input]);

/** A chunker request (a single text is a batch of one). */
export async function chunkerDocuments(plugin: Plugin, req: ParsedRequest, executor: Executor, limits: Limits): Promise<Documents> {
  const input = req.input as string | string[];
  checkTexts(input, limits);
  const texts = list(input);
  // A config the plugin refuses (a cross-field rule) is the whole request's error, not every document's.
  if (!texts.every(isBlank)) await plugin.instance(req.config);
  return {
    total: texts.length,
    size: (i) => texts[i]!.length,
    run: async (i, signal) => shaped(req.returnType, ((await runChunker(plugin, req.config, [texts[i]!], req.unit, executor, signal)) as Chunk[][])[0]!),
  };
}

/** A refinery request: each list of a list of lists is a document (a flat list of chunks is a batch of one). */
export async function refineryDocuments(plugin: Plugin, req: ParsedRequest, executor: Executor, limits: Limits): Promise<Documents> {
  const input = req.input as (Chunk | Chunk[])[];
  checkChunks(input, limits);
  const { lists } = chunkLists(input);
  if (lists.some((l) => l.length > 0)) await plugin.instance(req.config);
  return {
    total: lists.length,
    size: (i) => lists[i]!.reduce((n, c) => n + c.text.length, 0),
    run: async (i, signal) => shaped(req.returnType, ((await runRefinery(plugin, req.config, [lists[i]!], executor, signal)) as Chunk[][])[0]!),
  };
}

/** A pipeline run: each text goes through every step on its own. */
export async function pipelineDocuments(
  pipeline: PipelineRecord,
  body: { text: string | string[]; offset_unit: OffsetUnit; return_type: 'chunks' | 'texts' },
  deps: ExecuteDeps,
): Promise<Documents> {
  checkTexts(body.text, deps.settings);
  const texts = list(body.text);
  // Every step resolved and built once: a stale step or a refused config is the whole request's 400.
  for (const [i, step] of pipeline.steps.entries()) {
    const { plugin, config } = resolveStep(deps.registry, pipeline, step, i);
    if (!texts.every(isBlank)) await plugin.instance(config);
  }
  return {
    total: texts.length,
    size: (i) => texts[i]!.length,
    run: async (i, signal) => shaped(body.return_type, ((await executePipeline(pipeline, [texts[i]!], body.offset_unit, deps, signal)) as Chunk[][])[0]!),
  };
}

/** One answered document: its chunks, or the error body the JSON answer would have had for it alone. */
export type DocumentLine = { index: number; chunks: Chunk[] | string[] } | { index: number; error: ErrorEnvelope };
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
 * Run every document, handing each line to `onLine` as its document finishes, in completion order
 * (the line carries its index). A failing document gives an error line and the others go on.
 * Resolves once no document is running; a document cancelled by the signal gives no line.
 */
export async function eachDocument(docs: Documents, onLine: (line: DocumentLine) => void | Promise<void>, { concurrency, signal, onBug }: EachOptions): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < docs.total && !signal?.aborted) {
      const index = next++;
      let line: DocumentLine;
      try {
        line = { index, chunks: await docs.run(index, signal) };
      } catch (e) {
        if (signal?.aborted) return; // cancelled, not failed: the caller says why
        line = { index, error: envelope(e, onBug) };
      }
      await onLine(line);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, docs.total)) }, worker));
}

/** An error as the error middleware would answer it (kernel/errors.ts), never a stack. */
export function envelope(e: unknown, onBug?: (error: unknown) => void): ErrorEnvelope {
  if (isChunkdError(e)) return e.toJSON();
  onBug?.(e);
  return new ChunkdError('INTERNAL', 'Internal server error. The server log has the details.').toJSON();
}
