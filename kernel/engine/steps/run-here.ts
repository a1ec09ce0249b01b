/**
 * A recipe's steps over documents on this thread, wherever that is (a worker, or the calling
 * thread): the core of the engine, the same in both. Each step runs by its plugin's kind: a chef
 * processes (first only), a chunker chunks, a refinery refines; a write step (last) is the
 * caller's, handed each document's rows. Each document's result is made here, under its cap.
 */
import { orderChunk, type Chunk } from '../../chunk.js';
import type { ChefDocument, Processed } from '../../chef/document.js';
import { renameLimit } from '../../chef/errors.js';
import { isChunkdError } from '../../errors.js';
import type { ChunkContext } from '../../plugin.js';
import { docValue, structureOf, type Doc } from '../docs.js';
import { isThenable, type Maybe } from '../maybe.js';
import { chunksError, countGuard, MIN_CHUNK_BYTES, outputGuard } from '../output/caps.js';
import { encodeDocument, encodeList, encodeVectors, storedDocument } from '../output/encode.js';
import { isWriteStep, type RunnerStep, type RunOptions, type WireResult } from '../recipe.js';
import { chunkTexts } from './chunk.js';
import { checkChef, processHere } from './process.js';
import { refineLists } from './refine.js';
import { storeRows, type StoreRows } from './write.js';

/**
 * Run the steps over each document on this thread and make each result under the cap. A
 * document's ChunkdError is its result; so is a bug (an unexpected error); an abort of `signal`
 * is thrown.
 */
export function runHere(steps: RunnerStep[], docs: Doc[], options: RunOptions, signal?: AbortSignal): Maybe<WireResult[]> {
  // One chunk context for every document of this call, as the kernel promises plugins (slumber's LLM budget is per request).
  const work: HereWork = { steps, docs, options, signal, budget: { used: 0 }, context: { signal }, out: [] };
  return docsFrom(work, 0);
}

/**
 * Each document's chunks as objects, for a caller on this thread that works on them where they
 * are made (evaluation scores them in the same worker task, never handing a chunk graph back):
 * the same steps and caps as runHere, the answer cap counted by the chunks' least JSON.
 */
export async function chunksHere(steps: RunnerStep[], docs: Doc[], options: RunOptions, signal?: AbortSignal): Promise<Chunk[][]> {
  const budget = { used: 0 };
  const context: ChunkContext = { signal };
  const out: Chunk[][] = [];
  for (const doc of docs) {
    signal?.throwIfAborted();
    const result = await runSteps(steps, doc, options, budget, context, signal);
    if ('document' in result) throw new Error('A recipe that ends with a chef makes a document, not chunks: end it with a chunk or refine step.');
    if (options.cap.over === 'answer') budget.used += result.chunks.reduce((n, c) => n + c.text.length + MIN_CHUNK_BYTES, 1);
    out.push(result.chunks);
  }
  return out;
}

/** One runHere call: its documents, and the results made so far. */
interface HereWork {
  steps: RunnerStep[];
  docs: Doc[];
  options: RunOptions;
  signal?: AbortSignal;
  budget: { used: number };
  context: ChunkContext;
  out: WireResult[];
}

/** The documents from `from` on, in order; a document that does not finish at once is awaited and the rest follow it. */
function docsFrom(work: HereWork, from: number): Maybe<WireResult[]> {
  for (let i = from; i < work.docs.length; i++) {
    work.signal?.throwIfAborted();
    const result = oneDoc(work, i);
    if (isThenable(result)) {
      return result.then((r) => {
        work.out.push(r);
        return docsFrom(work, i + 1);
      });
    }
    work.out.push(result);
  }
  return work.out;
}

/** Document i's steps and its result: its error (a ChunkdError) or a bug as its result; an abort of the signal is thrown. */
function oneDoc(work: HereWork, i: number): Maybe<WireResult> {
  try {
    const ran = runSteps(work.steps, work.docs[i]!, work.options, work.budget, work.context, work.signal);
    if (!isThenable(ran)) return encoded(work, i, ran);
    return ran.then((r) => encoded(work, i, r)).then(undefined, (e: unknown) => failed(work, e));
  } catch (e) {
    return failed(work, e);
  }
}

/** A document's result as the recipe asks it (with a write step, its rows for the store beside its JSON), counted against the answer's cap. */
function encoded({ steps, options, budget }: HereWork, i: number, result: StepsResult): WireResult {
  if ('document' in result) {
    if (options.returnType === 'stored') return { stored: storedDocument(result.document) };
    const bytes = encodeDocument(result.document, options, budget);
    if (options.cap.over === 'answer') budget.used += bytes.length + 1;
    return { bytes };
  }
  if (options.returnType === 'vectors') return { bytes: encodeVectors(result.chunks) };
  let { chunks } = result;
  const write = steps.length > 0 && isWriteStep(steps.at(-1)!) ? steps.at(-1)! : undefined;
  // The store's rows are taken before the answer's marks; an embedding the write step added is not part of the answer.
  const rows: StoreRows | undefined = write ? storeRows(chunks, result.source) : undefined;
  if (write && write.config.answer_embeddings === false) chunks = chunks.map(({ embedding: _, ...c }) => c);
  if (options.markFrom !== undefined) chunks = chunks.map((c) => orderChunk({ ...c, metadata: { ...c.metadata, document: options.markFrom! + i } }));
  const bytes = encodeList(chunks, options, budget);
  if (options.cap.over === 'answer') budget.used += bytes.length + 1;
  return rows ? { bytes, rows } : { bytes };
}

function failed({ options, signal }: HereWork, e: unknown): WireResult {
  if (signal?.aborted) throw e;
  const named = renameLimit(e, options.chef.names ?? {});
  return isChunkdError(named) ? { error: { code: named.code, detail: named.detail, headers: named.headers } } : { bug: e };
}

/** What a document's steps made: its chunks and the text (or chunks) they came from, or (a chef the last step) the processed document. */
type StepsResult = { chunks: Chunk[]; source: string | Chunk[] } | { document: Processed };

/** A document's steps: the usual one chunker over a text without a promise when it can, any other recipe through stepsInOrder. */
function runSteps(
  steps: RunnerStep[],
  doc: Doc,
  options: RunOptions,
  budget: { used: number },
  context: ChunkContext,
  signal?: AbortSignal,
): Maybe<StepsResult> {
  const only = steps.length === 1 ? steps[0]! : undefined;
  if (only?.plugin.kind === 'chunker' && typeof doc === 'string') {
    // The usual request, one chunker over a text: no promise when the chunker answers at once (the loop below does the same, as a promise).
    const made = chunkTexts(only.plugin, only.config, [doc], options.unit, signal, undefined, outputGuard(options, budget), context);
    return isThenable(made) ? made.then((lists) => ({ chunks: lists[0]!, source: doc })) : { chunks: made[0]!, source: doc };
  }
  return stepsInOrder(steps, doc, options, budget, context, signal);
}

/** Each step by its plugin's kind: a chef processes (first only), a chunker chunks, a refinery refines; a write step (last) is the caller's. */
async function stepsInOrder(
  steps: RunnerStep[],
  doc: Doc,
  options: RunOptions,
  budget: { used: number },
  context: ChunkContext,
  signal?: AbortSignal,
): Promise<StepsResult> {
  let input = docValue(doc);
  const stored = typeof doc === 'object' && !Array.isArray(doc) && 'structure' in doc ? structureOf(doc.structure) : undefined;
  let structure = stored && [stored];
  const run = steps.length > 0 && isWriteStep(steps.at(-1)!) ? steps.slice(0, -1) : steps;
  // A write step alone is given chunks (already embedded) to write as they are.
  let chunks: Chunk[] = run.length === 0 && Array.isArray(input) ? input : [];
  for (let i = 0; i < run.length; i++) {
    const { plugin, config } = run[i]!;
    const last = i === run.length - 1;
    if (plugin.kind === 'chef') {
      if (i > 0 || Array.isArray(input)) throw new Error(`The chef '${plugin.name}' can only be a first step, given a text or a file.`);
      const given: ChefDocument = typeof input === 'string' ? { text: input } : input;
      const made = typeof doc === 'object' && 'chef' in doc && doc.chef === plugin.name ? doc : undefined;
      if (!made) checkChef(plugin, given);
      const processed: Processed = made
        ? { text: made.text, structure: stored!, metadata: {} }
        : await processHere(plugin, config, given, options.chef.limits, signal);
      if (last) return { document: processed };
      input = processed.text;
      structure = [processed.structure];
    } else if (plugin.kind === 'chunker') {
      if (i > 0 && steps[i - 1]!.plugin.kind !== 'chef') throw new Error(`The chunker '${plugin.name}' can only follow a chef, given a text.`);
      if (typeof input !== 'string')
        throw new Error(`The chunker '${plugin.name}' is given a text, not ${Array.isArray(input) ? 'chunks' : 'a file'}: put a chef before it.`);
      chunks = (
        await chunkTexts(plugin, config, [input], options.unit, signal, structure, last ? outputGuard(options, budget) : countGuard(options.maxChunks), context)
      )[0]!;
    } else {
      if (i > 0 && steps[i - 1]!.plugin.kind === 'chef')
        throw new Error(`The refinery '${plugin.name}' is given chunks, not a chef's document: put a chunker between them.`);
      const list = i === 0 ? (input as Chunk[]) : chunks;
      if (i > 0 && list.length > options.maxChunks) throw chunksError(list.length, options.maxChunks);
      chunks = (await refineLists(plugin, config, [list]))[0]!;
    }
  }
  return { chunks, source: typeof input === 'string' ? input : (input as Chunk[]) };
}
