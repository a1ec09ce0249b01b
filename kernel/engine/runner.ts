/**
 * The Runner: the one way plugin work runs, whatever asked for it (the JSON routes, NDJSON
 * streams, pipeline runs, jobs, uploads, store search, evaluation, the CLI). Free of HTTP.
 *
 *   const runner = new Runner(executor, { maxOutputBytes, maxDocumentOutputBytes, maxChunks });
 *   const recipe: Recipe = { steps: [{ plugin, config }], unit: 'codepoint', returnType: 'chunks' };
 *   const parts = await runner.answer(recipe, docs, { list: true, signal });      // one JSON answer, as bytes
 *     // (flat: true: one list of every document's chunks, each marked with its index in metadata.document)
 *   await runner.each(recipe, docs, (index, result) => …, { concurrency, signal }); // one result per document
 *   const stored = await runner.process(chefStep, { file: bytes, filename }, signal); // an upload's document
 *   const vectors = await runner.embed(embeddingStep, texts, signal);                 // texts' embeddings
 *   const lists = await runner.chunks(recipe, docs, signal);                          // chunk objects, here
 *
 * - A recipe (recipe.ts) is a list of steps, each a plugin and its validated config, run by the
 *   plugin's kind (steps/run-here.ts): a chef processes (only as the first step: a text, or a
 *   file's bytes), a chunker chunks, a refinery refines, a handshake writes (the last step).
 * - Where work runs (placement/): under INLINE_MAX_CHARS (characters × the steps' cost,
 *   kernel/cost.ts) on the calling thread, else in the executor's workers; answer() splits a batch
 *   into one group per thread, each() runs documents `concurrency` at a time. A first step that is
 *   a chef marked offLoop runs, with the steps after it, in the extraction pool instead (capped
 *   heap, --max-extract-ms), always for a file's bytes; a large file read on the calling thread
 *   waits its turn at the inline gate.
 * - Output (output/): a document's result is made where it ran and handed back as bytes, moved and
 *   not copied. Callers write those bytes as they are (a JSON answer, an NDJSON line, a job's result).
 * - Caps: an answer whose JSON would exceed maxOutputBytes is a 413; in each(), a document whose
 *   JSON would exceed maxDocumentOutputBytes fails alone with a 413 result. Both name the limit and
 *   the setting that raises it. Between steps a document may hold at most maxChunks chunks.
 * - each() yields to the event loop between documents.
 */
import { setImmediate as tick } from 'node:timers/promises';
import type { Chunk } from '../chunk.js';
import { asTextRefusal, renameLimit } from '../chef/errors.js';
import { DEFAULT_LIMITS, type ExtractLimits } from '../chef/limits.js';
import { ChunkdError, isChunkdError } from '../errors.js';
import { docBuffers, docWeight, hasFiles, moved, type Doc, type FileDoc } from './docs.js';
import { isThenable, type Maybe } from './maybe.js';
import { ANSWER_ADVICE, capError, documentOutputSetting, outputSetting } from './output/caps.js';
import { inlineGate, runExtractTask, SMALL_FILE_BYTES, type ExtractPoolOptions } from './placement/extract-pool.js';
import { runsInline, runsJobs, split, type Executor } from './placement/pool.js';
import type { Outcome } from './placement/tasks.js';
import {
  recipeCost,
  type Cap,
  type DocResult,
  type Recipe,
  type RunnerStep,
  type RunOptions,
  type ExtractedDocument,
  type StoreTarget,
  type WireResult,
} from './recipe.js';
import { checkChef } from './steps/process.js';
import { chunksHere, runHere } from './steps/run-here.js';
import { rowsOf, type StoreRows } from './steps/write.js';
import type { Plugin } from '../registry.js';

export { ANSWER_ADVICE };

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
  /** How a 413 names a limit a server setting gives (e.g. maxTextChars → the --max-text-chars setting). */
  names?: Partial<Record<keyof ExtractLimits, string>>;
  /** The extraction pool (placement/extract-pool.ts); without it offLoop chefs are placed like any step. */
  pool?: ExtractPoolOptions;
  /**
   * An offLoop chef always runs in the extraction pool, even where the executor runs everything on
   * the calling thread (the CLI): its wall-time budget (--max-extract-ms) then holds there too.
   */
  isolate?: boolean;
}

/** A result as the runner has it: a `stored` recipe's document (process()) besides a DocResult. */
type Result = DocResult | { stored: ExtractedDocument };
/** A result as it comes from runHere: with a write step, the document's rows for the store beside its JSON. */
type Ran = Result | { bytes: Uint8Array; rows: StoreRows };

/** A plugin step given outside a recipe (an embedding model, a chef): its plugin and validated config. */
export type PluginStep = Pick<RunnerStep, 'plugin' | 'config'>;

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

  /** Whether work may be placed in worker threads (job modules among it). */
  get pooled(): boolean {
    return runsJobs(this.executor);
  }

  /**
   * The JSON answer for `docs`: with `list`, the list of every document's result (`[[…],[…]]`),
   * else the one document's result; as parts to send one after the other. The first failing
   * document (by index) is the answer's error; an answer larger than maxOutputBytes is a 413.
   */
  async answer(recipe: Recipe, docs: Doc[], { list, flat = false, signal }: { list: boolean; flat?: boolean; signal?: AbortSignal }): Promise<Uint8Array[]> {
    const cap = this.answerCap();
    const cost = recipeCost(recipe);
    const groups = runsJobs(this.executor) ? (split(docs, docWeight, this.executor.threads, cost) ?? [docs]) : [docs];
    let results: Result[];
    if (groups.length === 1) {
      const ran = this.run(recipe, docs, cap, signal, flat ? 0 : undefined, 0); // most requests: no fan-out to join, nor a pause when it ran at once
      results = isThenable(ran) ? await ran : ran;
    } else {
      const firsts = groups.map((_, g) => groups.slice(0, g).reduce((n, x) => n + x.length, 0));
      results = (await Promise.all(groups.map((g, i) => this.run(recipe, g, cap, signal, flat ? firsts[i] : undefined, firsts[i])))).flat();
    }
    let total = 2 + Math.max(0, results.length - 1);
    for (const r of results) total += bytesOf(r).length;
    if (total > cap.bytes) throw capError(cap, total, false);
    if (!list) return [bytesOf(results[0]!)];
    if (flat) {
      // One list: each document's items, its brackets dropped (an empty document adds nothing).
      const inner = results
        .map(bytesOf)
        .filter((b) => b.length > 2)
        .map((b) => b.subarray(1, b.length - 1));
      return [OPEN, ...inner.flatMap((b, i) => (i ? [COMMA, b] : [b])), CLOSE];
    }
    return [OPEN, ...results.flatMap((r, i) => (i ? [COMMA, bytesOf(r)] : [bytesOf(r)])), CLOSE];
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
    const cap: Cap = { bytes: this.limits.maxDocumentOutputBytes, setting: documentOutputSetting(), over: 'document' };
    let next = 0;
    const lane = async () => {
      while (next < docs.length && !signal?.aborted) {
        const index = next++;
        let result: DocResult;
        try {
          const r = (await this.run(recipe, [docs[index]!], cap, signal, undefined, index))[0]!;
          result = 'stored' in r ? { bug: failure(r) } : r;
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
   * A file (or a text) read by a chef, as a store keeps it (an upload): its text, its structure as
   * JSON bytes and its code points, made where the chef ran, under the chef's limits and the
   * extraction pool's, exactly as a process step of a recipe.
   */
  async process(chef: PluginStep, doc: FileDoc | string, signal?: AbortSignal): Promise<ExtractedDocument> {
    const recipe: Recipe = { steps: [chef], unit: 'codepoint', returnType: 'stored' };
    const [result] = await this.run(recipe, [doc], this.answerCap(), signal, undefined, 0);
    if ('stored' in result!) return result.stored;
    throw failure(result!);
  }

  /**
   * The embeddings of `texts` by an embedding step (the embeddings refinery and its model), one
   * vector each: placed by cost like any step, the vectors made where it ran and moved back as one
   * buffer. A store's query, a write step's chunks and evaluation's questions share this path.
   */
  async embed(step: PluginStep, texts: string[], signal?: AbortSignal): Promise<Float64Array[]> {
    if (texts.length === 0) return [];
    const chunks: Chunk[] = texts.map((text) => ({ id: '', text, start_index: 0, end_index: text.length, token_count: 0 }));
    const recipe: Recipe = { steps: [step], unit: 'codepoint', returnType: 'vectors' };
    const [result] = await this.run(recipe, [chunks], this.answerCap(), signal, undefined, 0);
    const bytes = bytesOf(result!);
    const all = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    const dimension = all.length / texts.length;
    return texts.map((_, i) => all.subarray(i * dimension, (i + 1) * dimension));
  }

  /**
   * Each document's chunks as objects, run on this thread, for a caller that works on them where
   * they are made (evaluation scores a candidate inside one worker job, never handing its chunk
   * graph back): the same steps and caps as answer(), counted by the chunks' least JSON.
   */
  chunks(recipe: Recipe, docs: Doc[], signal?: AbortSignal): Promise<Chunk[][]> {
    return chunksHere(recipe.steps, docs, this.options(recipe, this.answerCap()), signal);
  }

  /**
   * A job module's default export (placement/tasks.ts Job) in a worker: `transfer` lists the
   * payload's buffers to move there. Only where the runner has workers (see `pooled`); a job
   * module runs its plugin work through a Runner of its own there.
   */
  job<R>(module: string, payload: unknown, transfer: ArrayBuffer[] = [], signal?: AbortSignal): Promise<R> {
    if (!runsJobs(this.executor)) throw new Error('Runner.job needs worker threads (check runner.pooled).');
    return this.executor.job<R>(module, payload, transfer, signal);
  }

  private answerCap(): Cap {
    return { bytes: this.limits.maxOutputBytes, setting: outputSetting(), over: 'answer' };
  }

  private options(recipe: Recipe, cap: Cap, markFrom?: number): RunOptions {
    const options: RunOptions = { unit: recipe.unit, returnType: recipe.returnType, cap, maxChunks: this.limits.maxChunks, chef: this.chefOptions };
    if (markFrom !== undefined) options.markFrom = markFrom;
    return options;
  }

  /**
   * One group of documents (the first being document `first` of the call), here or in one worker
   * task, by cost (an offLoop chef first: in the extraction pool); with a write step, each
   * document's chunks are then written, and its result is given only once the store has confirmed
   * them (or the store's error is its result).
   */
  private run(recipe: Recipe, docs: Doc[], cap: Cap, signal?: AbortSignal, markFrom?: number, first = 0): Maybe<Result[]> {
    const chef = this.limits.chef;
    const options = this.options(recipe, cap, markFrom);
    const pool = this.executor;
    let weight = 0;
    for (let i = 0; i < docs.length; i++) weight += docWeight(docs[i]!);
    const head = recipe.steps[0]?.plugin;
    const files = head?.kind === 'chef' && hasFiles(docs);
    const offPlace = runsJobs(pool) && !runsInline(weight, recipeCost(recipe), pool.threads);
    let wire: Maybe<WireResult[]>;
    if (head?.kind === 'chef' && chef?.pool && extracts(head, files) && (chef.isolate || (runsJobs(pool) && (files || offPlace)))) {
      checkChef(head, files ? { bytes: EMPTY } : {}); // a missing extra (501) or a text for a file reader (422): answered here, before the pool
      const task = { kind: 'run' as const, steps: stepSources(recipe), docs: moved(docs), options };
      wire = runExtractTask(task, weight, chef.pool, signal, docBuffers(task.docs)).then((outcome) => unwrapExtract(outcome, options, files));
    } else if (offPlace) {
      wire = pool.documents(stepSources(recipe), moved(docs), options, signal);
    } else if (files && chef?.pool && weight > SMALL_FILE_BYTES) {
      // A large file read on this thread: at most as many at once as the extraction pool has threads (placement/extract-pool.ts InlineGate).
      wire = inlineGate(chef.pool).run(async () => runHere(recipe.steps, docs, options, signal), signal);
    } else {
      wire = runHere(recipe.steps, docs, options, signal);
    }
    const target = recipe.steps.at(-1)?.target;
    if (target) return Promise.resolve(wire).then((w) => allWritten(target, first, w, signal));
    return isThenable(wire) ? wire.then(fromWires) : fromWires(wire);
  }
}

/** A successful result's bytes; a failed one is thrown (the first failing document is the answer's error). */
function bytesOf(r: Result): Uint8Array {
  if ('bytes' in r) return r.bytes;
  throw failure(r);
}

function failure(r: Result): unknown {
  if ('error' in r) return r.error;
  if ('bug' in r) return r.bug;
  return new Error('The recipe answered a stored document where bytes were expected.');
}

const fromWires = (wire: WireResult[]): Result[] => wire.map(fromWire);

/** Each document's result once its rows are written (steps/write.ts): one document at a time, in order. */
async function allWritten(target: StoreTarget, first: number, wire: WireResult[], signal?: AbortSignal): Promise<Result[]> {
  const results: Result[] = [];
  for (let i = 0; i < wire.length; i++) {
    const r = fromWire(wire[i]!);
    results.push('rows' in r ? await written(target, first + i, r, signal) : r);
  }
  return results;
}

/** The steps as a worker builds them: each plugin by its source, with its config. */
const stepSources = (recipe: Recipe) => recipe.steps.map((s) => ({ source: s.plugin.source, config: s.config }));

/** A document's rows handed to the store; the store's refusal (a 409, a store that is down) is the document's result. */
async function written(target: StoreTarget, index: number, { bytes, rows }: { bytes: Uint8Array; rows: StoreRows }, signal?: AbortSignal): Promise<DocResult> {
  try {
    signal?.throwIfAborted();
    await target.write(index, rows.digest, await rowsOf(rows));
    return { bytes };
  } catch (e) {
    if (isInterruption(e, signal)) throw e;
    return isChunkdError(e) ? { error: e } : { bug: e };
  }
}

/** Whether a chef runs in the extraction pool when off the event loop: offLoop, or offLoop for files and given one. */
const extracts = (chef: Plugin, files: boolean): boolean => chef.manifest.offLoop === true || (chef.manifest.offLoop === 'files' && files);

/**
 * The extraction pool's answer as the runner's results; a failure of the whole task (its 413 past
 * --max-extract-ms or the heap cap) is every document's, and speaks of the JSON text when no file was sent.
 */
function unwrapExtract(outcome: Outcome, options: RunOptions, files: boolean): WireResult[] {
  if ('done' in outcome) return outcome.done as WireResult[];
  if ('error' in outcome) {
    const named = renameLimit(new ChunkdError(outcome.error.code, outcome.error.detail), options.chef.names ?? {});
    throw files ? named : asTextRefusal(named);
  }
  throw Object.assign(new Error('An extraction worker failed on a document.'), { stack: outcome.bug });
}

function fromWire(r: WireResult): Ran {
  if ('bytes' in r) return r.rows ? { bytes: r.bytes, rows: r.rows } : { bytes: r.bytes };
  if ('stored' in r) return r;
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

const EMPTY = new Uint8Array(0);
const OPEN = new Uint8Array([0x5b]);
const COMMA = new Uint8Array([0x2c]);
const CLOSE = new Uint8Array([0x5d]);
