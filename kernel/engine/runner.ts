/**
 * The document runner: the one way work on documents runs, whatever asked for it (the JSON
 * routes, NDJSON streams, pipeline runs, jobs, the CLI). Free of HTTP.
 *
 *   const runner = new Runner(executor, { maxOutputBytes, maxDocumentOutputBytes, maxChunks });
 *   const recipe: Recipe = { steps: [{ plugin, config }], unit: 'codepoint', returnType: 'chunks' };
 *   const parts = await runner.answer(recipe, docs, { list: true, signal });      // one JSON answer, as bytes
 *     // (flat: true: one list of every document's chunks, each marked with its index in metadata.document)
 *   await runner.each(recipe, docs, (index, result) => …, { concurrency, signal }); // one result per document
 *
 * - A recipe is a list of steps, each a plugin and its validated config, run by the plugin's kind:
 *   a chef processes (only as the first step: a text, or a file's bytes, into a text and its
 *   structure), a chunker chunks (a text, or the chef's document), a refinery refines (a list of
 *   chunks, or the chunks of the step before). A recipe whose last step is a chef answers the
 *   processed document (text, structure in the request's unit, metadata). A document may also be
 *   given as its JSON bytes (`{json}`), parsed where it runs, or as a processed document
 *   (`{text, structure}`, e.g. a stored upload's, whose structure comes as JSON bytes parsed where
 *   it runs, weighed with the text to place it): the chunker is given its structure
 *   (ChunkContext.structure) and its chunks carry their headings, blocks and pages.
 * - Where work runs: under INLINE_MAX_CHARS (characters × the steps' cost, kernel/cost.ts) on the
 *   calling thread, else in the executor's workers (kernel/pool.ts); answer() splits a batch into
 *   one group per thread, each() runs documents `concurrency` at a time. A first step that is a
 *   chef marked offLoop runs, with the steps after it, in the extraction pool instead
 *   (kernel/chef/pool.ts: capped heap, --max-extract-ms), always for a file's bytes.
 * - Output: a document's result is turned into JSON where it ran (in the worker) and handed back as
 *   bytes, moved and not copied: the calling thread never stringifies a large object graph. Callers
 *   write those bytes as they are (a JSON answer, an NDJSON line, a job's result).
 * - Caps: an answer whose JSON would exceed maxOutputBytes is a 413; in each(), a document whose
 *   JSON would exceed maxDocumentOutputBytes fails alone with a 413 result. Both name the limit and
 *   the setting that raises it, and a chunker's spans are checked against the cap before any chunk
 *   is built from them. Between steps a document may hold at most maxChunks chunks.
 * - each() yields to the event loop between documents.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { isMainThread } from 'node:worker_threads';
import { tooLarge, type Setting } from '../caps.js';
import { orderChunk, type Chunk } from '../chunk.js';
import { ChunkdError, isChunkdError, type ErrorCode, type Issue } from '../errors.js';
import type { OffsetUnit } from '../offsets.js';
import type { ChefDocument, Processed, Structure } from '../chef/document.js';
import { renameLimit } from '../chef/errors.js';
import { DEFAULT_LIMITS, type ExtractLimits } from '../chef/limits.js';
import { runExtractTask, type ExtractPoolOptions } from './placement/extract-pool.js';
import { checkChef, processHere, toWire } from './steps/process.js';
import { listWeight, runsInline, runsJobs, split } from './placement/pool.js';
import type { Plugin } from '../registry.js';
import { chunkTexts, refineMany, type Executor, type SpanGuard } from './steps/chunk.js';
import { isThenable, type Maybe } from './maybe.js';
import type { ChunkContext } from '../plugin.js';
import { isWriteStep, rowsOf, storeRows, type StoreRows, type StoreTarget } from './steps/write.js';
import { isPlain, plainChunkJson, plainListBound, writePlainList } from './output/plain-json.js';
import { SLAB_MAX_BYTES, slabUtf8, slabWrite } from './output/utf8-slab.js';
import type { Outcome } from './placement/worker.js';

export interface RunnerStep {
  plugin: Plugin;
  config: Record<string, unknown>;
  /**
   * A write step (a handshake plugin, the last step): where its chunks go. It lives on the calling
   * thread and is never sent to a worker: the steps before it run where the runner puts them, and
   * each document's chunks come back as compact rows for this to write (kernel/store-rows.ts).
   */
  target?: StoreTarget;
}

export interface Recipe {
  steps: RunnerStep[];
  unit: OffsetUnit;
  /** `texts`: each document's result is the list of its chunks' texts. */
  returnType: 'chunks' | 'texts';
}

/**
 * A document: a text, a list of chunks, either as its JSON bytes (parsed where it runs), or a text
 * as UTF-16 bytes (lone surrogates kept), or a processed text with its structure (a chef's
 * output). Bytes are moved to a worker, never copied; a text given as a string is turned into
 * UTF-16 bytes before it goes to one (a native copy, not a clone).
 */
export type Doc = string | Chunk[] | { json: Uint8Array } | { utf16: Uint8Array } | StructuredDoc | FileDoc;

/** A file's bytes, for a recipe whose first step is a chef (what is known of the file beside them). */
export interface FileDoc {
  file: Uint8Array;
  filename?: string;
  mime?: string;
}

/** A processed document: its text, and the structure its chef found (UTF-16 spans of the text). */
export interface StructuredDoc {
  text: string;
  /**
   * The structure, or its JSON bytes (a stored upload's, in a buffer of their own: see movable):
   * parsed where the document runs, so a stored structure of many megabytes is moved to a worker
   * as bytes and never parsed on the calling thread when the work is placed off it.
   */
  structure: Structure | { json: Uint8Array };
  /** The chef that made it (a stored upload's): a process step of this very chef answers it as it is, not read again. */
  chef?: string;
}

/** A text as UTF-16 bytes in a buffer of its own (transferable: never Node's shared pool). */
export function utf16Doc(text: string): { utf16: Uint8Array } {
  const b = Buffer.allocUnsafeSlow(text.length * 2);
  b.write(text, 'utf16le');
  return { utf16: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) };
}

/**
 * Bytes in an ArrayBuffer of their own, so they can be moved to a worker: the same bytes when they
 * fill theirs, else a copy (moving a view into a larger buffer, such as Node's shared pool for
 * small Buffers, would detach whatever else lives in it).
 */
export function movable(bytes: Uint8Array): Uint8Array {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer) return bytes;
  return new Uint8Array(bytes);
}

/** The buffers of documents given as bytes (a structure given as its JSON too), to move along with them. */
export const docBuffers = (docs: Doc[]): ArrayBuffer[] =>
  docs.flatMap((d) => {
    if (typeof d !== 'object' || Array.isArray(d)) return [];
    if ('text' in d) return 'json' in d.structure ? [d.structure.json.buffer as ArrayBuffer] : [];
    return [('json' in d ? d.json : 'file' in d ? d.file : d.utf16).buffer as ArrayBuffer];
  });

export interface RunnerLimits {
  /** Largest JSON answer (answer()), in bytes. */
  maxOutputBytes: number;
  /** Largest result of one document in each() (an NDJSON line, a job's result), in bytes. */
  maxDocumentOutputBytes: number;
  /** Most chunks a document may hand to a refine step after the first step. */
  maxChunks: number;
  /** For a chef step: the limits of its work (kernel/chef/limits.ts) and the pool offLoop chefs run in. */
  chef?: ChefLimits;
}

export interface ChefLimits {
  limits?: Partial<ExtractLimits>;
  /** How a 413 names a limit a server setting gives (e.g. maxTextChars → '--max-text-chars, CHUNKD_MAX_TEXT_CHARS'). */
  names?: Partial<Record<keyof ExtractLimits, string>>;
  /** The extraction pool (kernel/chef/pool.ts); without it offLoop chefs are placed like any step. */
  pool?: ExtractPoolOptions;
  /**
   * An offLoop chef always runs in the extraction pool, even where the executor runs everything on
   * the calling thread (the CLI): its wall-time budget (--max-extract-ms) then holds there too.
   */
  isolate?: boolean;
}

/** The settings that raise the caps, as the server names them (service/settings.ts). */
export const OUTPUT_SETTING: Setting = { flag: 'max-output-bytes', env: 'CHUNKD_MAX_OUTPUT_BYTES' };
export const DOCUMENT_OUTPUT_SETTING: Setting = { flag: 'max-document-output-bytes', env: 'CHUNKD_MAX_DOCUMENT_OUTPUT_BYTES' };
export const CHUNKS_SETTING: Setting = { flag: 'max-chunks', env: 'CHUNKD_MAX_CHUNKS' };

/** One document's result: its JSON (a list of chunks or texts), or why it failed (`bug`: not the client's doing; log it). */
export type DocResult = { bytes: Uint8Array } | { error: ChunkdError } | { bug: unknown };

/** A result as it comes from runHere: with a write step, the document's rows for the store beside its JSON. */
type Ran = DocResult | { bytes: Uint8Array; rows: StoreRows };

/** A cap on the bytes of JSON produced: per document, or over all the documents of one call. */
export interface Cap {
  bytes: number;
  setting: Setting;
  /** 'answer': over every document of the call (a JSON answer); 'document': each on its own. */
  over: 'answer' | 'document';
}

/** What runHere needs besides the steps and documents: plain data, so a worker gets it too. */
export interface RunOptions {
  unit: OffsetUnit;
  returnType: 'chunks' | 'texts';
  cap: Cap;
  maxChunks: number;
  /** Mark each document's chunks with its index (`metadata.document`), the first document of the call being this one (a flat answer). */
  markFrom?: number;
  /** A chef step's limits, and the names the 413s give them. */
  chef: { limits: ExtractLimits; names?: Partial<Record<keyof ExtractLimits, string>> };
}

/** A result as it crosses threads: an error as data, a bug as its stack. */
export type WireResult = { bytes: Uint8Array; rows?: StoreRows } | { error: { code: ErrorCode; detail: string | Issue[]; headers: Record<string, string> } } | { bug: unknown };

export class Runner {
  /** The chef limits every run hands on, merged once (a runner serves many requests). */
  private readonly chefOptions: RunOptions['chef'];

  constructor(
    readonly executor: Executor,
    private readonly limits: RunnerLimits,
  ) {
    const chef = limits.chef;
    this.chefOptions = { limits: { ...DEFAULT_LIMITS, ...chef?.limits }, ...(chef?.names ? { names: chef.names } : {}) };
  }

  /**
   * The JSON answer for `docs`: with `list`, the list of every document's result (`[[…],[…]]`),
   * else the one document's result; as parts to send one after the other. The first failing
   * document (by index) is the answer's error; an answer larger than maxOutputBytes is a 413.
   */
  async answer(recipe: Recipe, docs: Doc[], { list, flat = false, signal }: { list: boolean; flat?: boolean; signal?: AbortSignal }): Promise<Uint8Array[]> {
    const cap: Cap = { bytes: this.limits.maxOutputBytes, setting: OUTPUT_SETTING, over: 'answer' };
    const cost = recipeCost(recipe);
    const groups = runsJobs(this.executor) ? (split(docs, docWeight, this.executor.threads, cost) ?? [docs]) : [docs];
    let results: DocResult[];
    if (groups.length === 1) {
      const ran = this.run(recipe, docs, cap, signal, flat ? 0 : undefined, 0); // most requests: no fan-out to join, nor a pause when it ran at once
      results = isThenable(ran) ? await ran : ran;
    } else {
      const firsts = groups.map((_, g) => groups.slice(0, g).reduce((n, x) => n + x.length, 0));
      results = (await Promise.all(groups.map((g, i) => this.run(recipe, g, cap, signal, flat ? firsts[i] : undefined, firsts[i])))).flat();
    }
    let total = 2 + Math.max(0, results.length - 1);
    for (const r of results) {
      if ('error' in r) throw r.error;
      if ('bug' in r) throw r.bug;
      total += r.bytes.length;
    }
    if (total > cap.bytes) throw capError(cap, total, false);
    if (!list) return [(results[0] as { bytes: Uint8Array }).bytes];
    if (flat) {
      // One list: each document's items, its brackets dropped (an empty document adds nothing).
      const inner = results.map((r) => (r as { bytes: Uint8Array }).bytes).filter((b) => b.length > 2).map((b) => b.subarray(1, b.length - 1));
      return [OPEN, ...inner.flatMap((b, i) => (i ? [COMMA, b] : [b])), CLOSE];
    }
    return [OPEN, ...results.flatMap((r, i) => (i ? [COMMA, (r as { bytes: Uint8Array }).bytes] : [(r as { bytes: Uint8Array }).bytes])), CLOSE];
  }

  /**
   * Run every document, `concurrency` at a time, handing each result to `onResult` as its
   * document finishes (completion order). A failing document gives its error and the others go on.
   * Stops starting documents once `signal` is aborted; an interruption (the signal, the pool
   * closing) is thrown, never reported as a document's failure.
   */
  async each(
    recipe: Recipe,
    docs: Doc[],
    onResult: (index: number, result: DocResult) => void | Promise<void>,
    { concurrency = 1, signal }: { concurrency?: number; signal?: AbortSignal } = {},
  ): Promise<void> {
    const cap: Cap = { bytes: this.limits.maxDocumentOutputBytes, setting: DOCUMENT_OUTPUT_SETTING, over: 'document' };
    let next = 0;
    const lane = async () => {
      while (next < docs.length && !signal?.aborted) {
        const index = next++;
        let result: DocResult;
        try {
          result = (await this.run(recipe, [docs[index]!], cap, signal, undefined, index))[0]!;
        } catch (e) {
          if (isInterruption(e, signal)) throw e;
          result = isChunkdError(e) ? { error: e } : { bug: e };
        }
        await onResult(index, result);
        await tick(); // the event loop answers other requests between documents
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, docs.length)) }, lane));
  }

  /**
   * One group of documents (the first being document `first` of the call), here or in one worker
   * task, by cost (an offLoop chef first: in the extraction pool); with a write step, each
   * document's chunks are then written, and its result is given only once the store has confirmed
   * them (or the store's error is its result).
   */
  private run(recipe: Recipe, docs: Doc[], cap: Cap, signal?: AbortSignal, markFrom?: number, first = 0): Maybe<DocResult[]> {
    const chef = this.limits.chef;
    const options: RunOptions = { unit: recipe.unit, returnType: recipe.returnType, cap, maxChunks: this.limits.maxChunks, chef: this.chefOptions };
    if (markFrom !== undefined) options.markFrom = markFrom;
    const pool = this.executor;
    let weight = 0;
    for (let i = 0; i < docs.length; i++) weight += docWeight(docs[i]!);
    const head = recipe.steps[0]?.plugin;
    const offPlace = runsJobs(pool) && !runsInline(weight, recipeCost(recipe), pool.threads);
    let wire: Maybe<WireResult[]>;
    if (head?.kind === 'chef' && chef?.pool && extracts(head, hasFiles(docs)) && (chef.isolate || (runsJobs(pool) && (hasFiles(docs) || offPlace)))) {
      const task = { kind: 'run' as const, steps: stepSources(recipe), docs: moved(docs), options };
      wire = runExtractTask(task, weight, chef.pool, signal, docBuffers(task.docs)).then((outcome) => unwrapExtract(outcome, options));
    } else if (offPlace) {
      wire = pool.documents(stepSources(recipe), moved(docs), options, signal);
    } else {
      wire = runHere(recipe.steps, docs, options, signal);
    }
    const target = recipe.steps.at(-1)?.target;
    if (target) return Promise.resolve(wire).then((w) => allWritten(target, first, w, signal));
    return isThenable(wire) ? wire.then(fromWires) : fromWires(wire);
  }
}

const fromWires = (wire: WireResult[]): DocResult[] => wire.map(fromWire);

/** Each document's result once its rows are written (kernel/store-rows.ts): one document at a time, in order. */
async function allWritten(target: StoreTarget, first: number, wire: WireResult[], signal?: AbortSignal): Promise<DocResult[]> {
  const results: DocResult[] = [];
  for (let i = 0; i < wire.length; i++) {
    const r = fromWire(wire[i]!);
    results.push('rows' in r ? await written(target, first + i, r, signal) : r);
  }
  return results;
}

/** The steps as a worker builds them: each plugin by its source, with its config. */
const stepSources = (recipe: Recipe) => recipe.steps.map((s) => ({ source: s.plugin.source, config: s.config }));
/** Documents as they are moved to a worker: a text as UTF-16 bytes. */
const moved = (docs: Doc[]): Doc[] => docs.map((d) => (typeof d === 'string' ? utf16Doc(d) : d));
const hasFiles = (docs: Doc[]): boolean => docs.some((d) => typeof d === 'object' && 'file' in d);

/** A document's rows handed to the store; the store's refusal (a 409, a store that is down) is the document's result. */
async function written(target: StoreTarget, index: number, { bytes, rows }: { bytes: Uint8Array; rows: StoreRows }, signal?: AbortSignal): Promise<DocResult> {
  try {
    signal?.throwIfAborted();
    await target.write(index, rows.digest, rowsOf(rows));
    return { bytes };
  } catch (e) {
    if (isInterruption(e, signal)) throw e;
    return isChunkdError(e) ? { error: e } : { bug: e };
  }
}

/** Whether a chef runs in the extraction pool when off the event loop: offLoop, or offLoop for files and given one. */
const extracts = (chef: Plugin, files: boolean): boolean => chef.manifest.offLoop === true || (chef.manifest.offLoop === 'files' && files);

/** The extraction pool's answer as the runner's results; a failure of the whole task (its 413 past --max-extract-ms) is every document's. */
function unwrapExtract(outcome: Outcome, options: RunOptions): WireResult[] {
  if ('done' in outcome) return outcome.done as WireResult[];
  if ('error' in outcome) throw renameLimit(new ChunkdError(outcome.error.code, outcome.error.detail), options.chef.names ?? {});
  if ('bug' in outcome) throw Object.assign(new Error('An extraction worker failed on a document.'), { stack: outcome.bug });
  throw new Error('The extraction worker answered nothing.');
}

/** Work per character through every step (kernel/cost.ts). */
export const recipeCost = (recipe: Recipe): number => recipe.steps.reduce((n, s) => n + (isWriteStep(s) ? 0 : s.plugin.cost(s.config)), 0);

/**
 * Characters (or bytes, for JSON) of a document: what the pool's cost rule weighs. A structure
 * given as JSON weighs its bytes beside the text, so a large one is parsed in a worker.
 */
export const docWeight = (d: Doc): number =>
  typeof d === 'string'
    ? d.length
    : Array.isArray(d)
      ? listWeight(d)
      : 'text' in d
        ? d.text.length + ('json' in d.structure ? d.structure.json.byteLength : 0)
        : 'json' in d
          ? d.json.byteLength
          : 'file' in d
            ? d.file.byteLength
            : d.utf16.byteLength / 2;

function docValue(d: Doc): string | Chunk[] | ChefDocument {
  if (typeof d === 'string' || Array.isArray(d)) return d;
  if ('text' in d) return d.text;
  if ('file' in d) return { bytes: d.file, filename: d.filename ?? '', ...(d.mime ? { mime: d.mime } : {}) };
  if ('utf16' in d) return Buffer.from(d.utf16.buffer, d.utf16.byteOffset, d.utf16.byteLength).toString('utf16le');
  return JSON.parse(new TextDecoder().decode(d.json)) as string | Chunk[];
}

/** Structures parsed from their JSON on this thread (a worker's or the calling one's), for tests that judge where the parse ran. */
export const parsedStructures = { documents: 0, bytes: 0 };

/** A document's structure, parsed here when it was given as JSON (a stored upload's). */
function structureOf(given: StructuredDoc['structure']): Structure {
  if (!('json' in given)) return given;
  parsedStructures.documents++;
  parsedStructures.bytes += given.json.byteLength;
  return JSON.parse(new TextDecoder().decode(given.json)) as Structure;
}

/**
 * Run the steps over each document on this thread and serialize each result under the cap: the
 * core of the runner, the same in a worker (kernel/worker.ts) and inline. A document's ChunkdError
 * is its result; so is a bug (an unexpected error); an abort of `signal` is thrown.
 */
export function runHere(steps: RunnerStep[], docs: Doc[], options: RunOptions, signal?: AbortSignal): Maybe<WireResult[]> {
  // One chunk context for every document of this call, as the kernel promises plugins (slumber's LLM budget is per request).
  const work: HereWork = { steps, docs, options, signal, budget: { used: 0 }, context: { signal }, out: [] };
  return docsFrom(work, 0);
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

/** Document i's steps and its JSON: its error (a ChunkdError) or a bug as its result; an abort of the signal is thrown. */
function oneDoc(work: HereWork, i: number): Maybe<WireResult> {
  try {
    const ran = runSteps(work.steps, work.docs[i]!, work.options, work.budget, work.context, work.signal);
    if (!isThenable(ran)) return encoded(work, i, ran);
    return ran.then((r) => encoded(work, i, r)).then(undefined, (e: unknown) => failed(work, e));
  } catch (e) {
    return failed(work, e);
  }
}

/** A document's result as JSON bytes (and, with a write step, its rows for the store), counted against the answer's cap. */
function encoded({ steps, options, budget }: HereWork, i: number, result: StepsResult): WireResult {
  let bytes: Uint8Array;
  let rows: StoreRows | undefined;
  if ('document' in result) bytes = encodeDocument(result.document, options, budget);
  else {
    let { chunks } = result;
    const write = steps.length > 0 && isWriteStep(steps.at(-1)!) ? steps.at(-1)! : undefined;
    // The store's rows are taken before the answer's marks; an embedding the write step added is not part of the answer.
    rows = write ? storeRows(chunks, result.source) : undefined;
    if (write && write.config.answer_embeddings === false) chunks = chunks.map(({ embedding: _, ...c }) => c);
    if (options.markFrom !== undefined) chunks = chunks.map((c) => orderChunk({ ...c, metadata: { ...c.metadata, document: options.markFrom! + i } }));
    bytes = encodeList(chunks, options, budget);
  }
  if (options.cap.over === 'answer') budget.used += bytes.length + 1;
  return rows ? { bytes, rows } : { bytes };
}

function failed({ options, signal }: HereWork, e: unknown): WireResult {
  if (signal?.aborted) throw e;
  const named = renameLimit(e, options.chef.names ?? {});
  return isChunkdError(named) ? { error: { code: named.code, detail: named.detail, headers: named.headers } } : { bug: e };
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

/** What a document's steps made: its chunks and the text (or chunks) they came from, or (a chef the last step) the processed document. */
type StepsResult = { chunks: Chunk[]; source: string | Chunk[] } | { document: Processed };

/** A document's steps: the usual one chunker over a text without a promise when it can, any other recipe through stepsInOrder. */
function runSteps(steps: RunnerStep[], doc: Doc, options: RunOptions, budget: { used: number }, context: ChunkContext, signal?: AbortSignal): Maybe<StepsResult> {
  const only = steps.length === 1 ? steps[0]! : undefined;
  if (only?.plugin.kind === 'chunker' && typeof doc === 'string') {
    // The usual request, one chunker over a text: no promise when the chunker answers at once (the loop below does the same, as a promise).
    const made = chunkTexts(only.plugin, only.config, [doc], options.unit, signal, undefined, outputGuard(options, budget), context);
    return isThenable(made) ? made.then((lists) => ({ chunks: lists[0]!, source: doc })) : { chunks: made[0]!, source: doc };
  }
  return stepsInOrder(steps, doc, options, budget, context, signal);
}

/** Each step by its plugin's kind: a chef processes (first only), a chunker chunks, a refinery refines; a write step (last) is the caller's. */
async function stepsInOrder(steps: RunnerStep[], doc: Doc, options: RunOptions, budget: { used: number }, context: ChunkContext, signal?: AbortSignal): Promise<StepsResult> {
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
      const processed: Processed = made ? { text: made.text, structure: stored!, metadata: {} } : await processHere(plugin, config, given, options.chef.limits, signal);
      if (last) return { document: processed };
      input = processed.text;
      structure = [processed.structure];
    } else if (plugin.kind === 'chunker') {
      if (i > 0 && steps[i - 1]!.plugin.kind !== 'chef') throw new Error(`The chunker '${plugin.name}' can only follow a chef, given a text.`);
      if (typeof input !== 'string') throw new Error(`The chunker '${plugin.name}' is given a text, not ${Array.isArray(input) ? 'chunks' : 'a file'}: put a chef before it.`);
      chunks = (await chunkTexts(plugin, config, [input], options.unit, signal, structure, last ? outputGuard(options, budget) : countGuard(options.maxChunks), context))[0]!;
    } else {
      if (i > 0 && steps[i - 1]!.plugin.kind === 'chef') throw new Error(`The refinery '${plugin.name}' is given chunks, not a chef's document: put a chunker between them.`);
      const list = i === 0 ? (input as Chunk[]) : chunks;
      if (i > 0 && list.length > options.maxChunks) throw chunksError(list.length, options.maxChunks);
      chunks = (await refineMany(plugin, config, [list]))[0]!;
    }
  }
  return { chunks, source: typeof input === 'string' ? input : (input as Chunk[]) };
}

/** A processed document as its wire JSON (offsets in the request's unit), refused once past the cap; its text alone is refused before any JSON is made. */
function encodeDocument(doc: Processed, options: RunOptions, budget: { used: number }): Uint8Array {
  const room = options.cap.bytes - budget.used;
  // Every character of the text is at least a byte of JSON.
  if (doc.text.length > room) throw capError(options.cap, budget.used + doc.text.length, true);
  const bytes = utf8(JSON.stringify(toWire(doc, options.unit)));
  if (bytes.length > room) throw capError(options.cap, budget.used + bytes.length, false);
  return bytes;
}

/** The fewest bytes of JSON a chunk takes (`{"id":"chnk_…","text":"","start_index":0,…}`), and a text of a `texts` answer (`""` and its comma). */
const MIN_CHUNK_BYTES = 90;
const MIN_TEXT_BYTES = 3;

/** Refuse spans whose chunks cannot fit the cap, before any chunk is built (a UTF-16 unit is at least a byte of JSON). */
function outputGuard(options: RunOptions, budget: { used: number }): SpanGuard {
  const per = options.returnType === 'texts' ? MIN_TEXT_BYTES : MIN_CHUNK_BYTES;
  return {
    maxSpans: Math.floor(Math.max(0, options.cap.bytes - budget.used) / per),
    check(spans) {
      let least = budget.used + 1;
      for (const s of spans) least += s.end - s.start + per;
      if (least > options.cap.bytes) throw capError(options.cap, least, true);
    },
  };
}

const countGuard = (maxChunks: number): SpanGuard => ({
  maxSpans: maxChunks,
  check(spans) {
    // One more than the most: the chunker may have stopped there (ChunkContext.maxSpans).
    if (spans.length > maxChunks) throw chunksError(spans.length, maxChunks, spans.length === maxChunks + 1);
  },
});

const chunksError = (n: number, max: number, atLeast = false) => tooLarge(`The request has ${atLeast ? 'at least ' : ''}${n.toLocaleString('en')} chunks`, max, CHUNKS_SETTING);

/** What a 413 for an answer over --max-output-bytes tells its sender to do (evaluation, which does not answer chunks, says otherwise). */
export const ANSWER_ADVICE = 'Send less per request, use larger chunks, or stream it (Accept: application/x-ndjson)';

function capError(cap: Cap, bytes: number, atLeast: boolean): ChunkdError {
  const what = cap.over === 'answer' ? 'The answer' : "The document's result";
  const size = `${atLeast ? 'at least ' : ''}${bytes.toLocaleString('en')} bytes of JSON`;
  const advice = cap.over === 'answer' ? ANSWER_ADVICE : 'Send a smaller document or use larger chunks';
  return tooLarge(`${what} would take ${size}`, cap.bytes, cap.setting, advice);
}

const encoder = new TextEncoder();
/** A string's UTF-8 bytes: a worker's are moved to the calling thread, so they get an ArrayBuffer of their own; the main thread's never move (kernel/utf8-slab.ts). */
const utf8: (s: string) => Uint8Array = isMainThread ? slabUtf8 : (s) => encoder.encode(s);
const FLUSH_CHARS = 1 << 16;

/** A document's chunks (or their texts) as JSON bytes, exactly as JSON.stringify gives them, refused as soon as they pass the cap. */
function encodeList(chunks: Chunk[], { returnType, cap }: RunOptions, budget: { used: number }): Uint8Array {
  const texts = returnType === 'texts';
  const plain = !texts && isPlain(chunks);
  const room = cap.bytes - budget.used;
  if (isMainThread && (texts || plain)) {
    // A small answer on this thread: written straight into the slab's bytes, no string made (kernel/json-bytes.ts); it fits the cap by its bound.
    const bound = plainListBound(chunks, texts);
    if (bound <= SLAB_MAX_BYTES && bound <= room) return slabWrite(bound, (into, at) => writePlainList(into, at, chunks, texts));
  }
  const pieces: Uint8Array[] = [];
  let size = 0;
  let buffer = '[';
  const flush = () => {
    const b = utf8(buffer);
    buffer = '';
    size += b.length;
    pieces.push(b);
  };
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    buffer += (i ? ',' : '') + (texts ? JSON.stringify(c.text) : plain ? plainChunkJson(c) : JSON.stringify(c));
    if (buffer.length >= FLUSH_CHARS) flush();
    if (size + buffer.length > room) throw capError(cap, budget.used + size + buffer.length, true);
  }
  buffer += ']';
  flush();
  if (size > room) throw capError(cap, budget.used + size, false);
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function fromWire(r: WireResult): Ran {
  if ('bytes' in r) return r.rows ? { bytes: r.bytes, rows: r.rows } : { bytes: r.bytes };
  if ('error' in r) return { error: new ChunkdError(r.error.code, r.error.detail, r.error.headers) };
  if (typeof r.bug === 'string') return { bug: Object.assign(new Error('A worker failed on a document.'), { stack: r.bug }) };
  return r;
}

/** A failure that is about this process (an abort, the pool closing), not about the document. */
export function isInterruption(e: unknown, signal?: AbortSignal): boolean {
  if (isChunkdError(e)) return false;
  if (signal?.aborted) return true;
  const { name, message } = (e ?? {}) as { name?: string; message?: string };
  return name === 'AbortError' || /Terminating worker thread|pool is closed|destroyed/i.test(message ?? '');
}

const OPEN = new Uint8Array([0x5b]);
const COMMA = new Uint8Array([0x2c]);
const CLOSE = new Uint8Array([0x5d]);
