import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ChunkdError } from '../../errors.js';
import { shareHost } from '../../host.js';
import { FILE_ADVICE } from '../../chef/errors.js';
import type { Outcome, Task } from './tasks.js';
import { threadNice } from './nice.js';
import { workerEntry } from './worker-entry.js';

/**
 * Heap one extraction may use. mammoth and html-to-text have no bound on what they build from a
 * file, nor PDF.js beyond its decoded-bytes budget: extraction runs in its own worker whose V8
 * heap is capped, so such a file kills that worker (a 413), not the server. The cap is on the JS
 * heap; ArrayBuffer contents live outside it and are not counted (PDF.js's decoded streams are
 * bounded by maxPdfDecodedBytes instead).
 */
export const EXTRACT_MEMORY_MB = 512;

/** A file this small (bytes) may also run in the lane kept for small files. */
export const SMALL_FILE_BYTES = 256 * 1024;

/** How the extraction workers are shared (server settings --extract-threads, --max-extract-ms, --max-extract-queue, --worker-nice). */
export interface ExtractPoolOptions {
  /**
   * Extraction threads. With two or more, one of them is kept for small files (SMALL_FILE_BYTES),
   * so a small file never waits behind large slow ones; the others take any file.
   */
  threads: number;
  /** Longest time one file may take once a worker starts it (ms): then the worker is terminated and the file refused (413). */
  maxMs: number;
  /** Files that may wait for a thread; one more is refused (503 with Retry-After). */
  maxQueue: number;
  /** Heap cap of each worker (MB). */
  memoryMb: number;
  /** How much lower the workers' CPU priority is than the calling thread's (a nice increment; 0 or unset: the same). */
  nice?: number;
  /** How a 413 or 503 names the settings that raise its limit. */
  names?: { maxMs?: string; maxQueue?: string; memoryMb?: string };
}

export const defaultExtractThreads = (): number => Math.min(2, availableParallelism());

export const DEFAULT_POOL: ExtractPoolOptions = { threads: defaultExtractThreads(), maxMs: 30_000, maxQueue: 32, memoryMb: EXTRACT_MEMORY_MB };

interface Waiter {
  small: boolean;
  start: (lane: Lane) => void;
}
type Lane = 'any' | 'small';

/**
 * The extraction workers for one set of options: a piscina pool with as many threads as lanes
 * allow, and in front of it a bounded queue that hands a file a thread only when one of its lanes
 * is free. The time budget therefore starts when a worker starts the file, never while it waits.
 */
class ExtractPool {
  private readonly piscina: Piscina<Task, Outcome>;
  private readonly free: Record<Lane, number>;
  private readonly waiting: Waiter[] = [];
  /** Files started so far, and in which lane (tests and the bench read it). */
  readonly started: Record<Lane, number> = { any: 0, small: 0 };

  constructor(readonly options: ExtractPoolOptions) {
    const threads = Math.max(1, options.threads);
    const small = threads >= 2 ? 1 : 0;
    this.free = { any: threads - small, small };
    shareHost(); // the workers get the host as it is now (kernel/host.ts)
    this.piscina = new Piscina<Task, Outcome>({
      ...workerEntry({}),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: options.memoryMb },
      niceIncrement: threadNice(options.nice),
    });
  }

  async run(task: Task, bytes: number, signal?: AbortSignal, transfer: ArrayBuffer[] = []): Promise<Outcome> {
    const lane = await this.acquire(bytes <= SMALL_FILE_BYTES, signal);
    this.started[lane]++;
    const budget = AbortSignal.timeout(this.options.maxMs);
    const both = signal ? AbortSignal.any([signal, budget]) : budget;
    try {
      return await this.piscina.run(task, { signal: both, transferList: transfer });
    } catch (e) {
      if (budget.aborted && !signal?.aborted) throw this.tooSlow();
      throw e;
    } finally {
      this.release(lane);
    }
  }

  /** A free lane for the file, now or once one frees; a full queue is a 503. */
  private acquire(small: boolean, signal?: AbortSignal): Promise<Lane> {
    signal?.throwIfAborted();
    const lane = this.freeLane(small);
    if (lane) {
      this.free[lane]--;
      return Promise.resolve(lane);
    }
    if (this.waiting.length >= this.options.maxQueue) throw this.queueFull();
    return new Promise<Lane>((resolve, reject) => {
      const waiter: Waiter = {
        small,
        start: (l) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(l);
        },
      };
      const onAbort = () => {
        const at = this.waiting.indexOf(waiter);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** A small file takes the small lane first, then any; a large file only the general lane. */
  private freeLane(small: boolean): Lane | undefined {
    if (small && this.free.small > 0) return 'small';
    return this.free.any > 0 ? 'any' : undefined;
  }

  /** Give the freed lane to the first waiting file that may use it. */
  private release(lane: Lane): void {
    const at = this.waiting.findIndex((w) => lane === 'any' || w.small);
    if (at < 0) {
      this.free[lane]++;
      return;
    }
    const [next] = this.waiting.splice(at, 1);
    next!.start(lane);
  }

  private tooSlow(): ChunkdError {
    const name = this.options.names?.maxMs ?? 'maxExtractMs';
    return new ChunkdError(
      'TOO_LARGE',
      `The file takes longer to extract than this server spends on one file (${this.options.maxMs} ms, limit ${name}): ${FILE_ADVICE}`,
    );
  }

  private queueFull(): ChunkdError {
    return queueFull(this.options);
  }

  /** Files waiting for a thread (tests and the bench read it). */
  get queued(): number {
    return this.waiting.length;
  }

  destroy(): Promise<void> {
    return this.piscina.destroy();
  }
}

/**
 * The same bound for chefs that run on the event loop (every chef without worker threads; with
 * them, chefs not marked offLoop): at most `threads` large
 * files (over SMALL_FILE_BYTES) are decoded at once and `maxQueue` wait, one more is a 503. Sixty
 * parallel 16 MiB uploads otherwise all decode at once: a gigabyte of strings, the collector's
 * pauses with them, and the event loop held by one decode after another.
 *
 * Each file is decoded in one native call (about 10 ms for 16 MiB on an idle core): decoding it
 * a slice at a time with a streaming TextDecoder was measured slower (Node's streaming path
 * leaves the SIMD decoder, ~3× the time) and made two-byte strings (twice the memory), and the
 * join of the slices held the loop about as long as the whole decode.
 */
class InlineGate {
  private running = 0;
  /** Most files decoding at once so far (tests read it). */
  peak = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly options: ExtractPoolOptions) {}

  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    signal?.throwIfAborted();
    if (this.running >= Math.max(1, this.options.threads)) {
      if (this.waiting.length >= this.options.maxQueue) throw queueFull(this.options);
      await new Promise<void>((resolve, reject) => {
        const start = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const at = this.waiting.indexOf(start);
          if (at >= 0) this.waiting.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(start);
      });
    } else {
      this.running++;
    }
    this.peak = Math.max(this.peak, this.running);
    try {
      // Let the event loop turn before the decode, so waiting requests are answered first.
      await new Promise((resolve) => setImmediate(resolve));
      signal?.throwIfAborted();
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  get queued(): number {
    return this.waiting.length;
  }
}

const gates = new Map<string, InlineGate>();

/** The gate for chefs run on the event loop, for these options (see InlineGate). */
export function inlineGate(options: ExtractPoolOptions): InlineGate {
  const key = JSON.stringify([options.threads, options.maxQueue]);
  let gate = gates.get(key);
  if (!gate) {
    gate = new InlineGate(options);
    gates.set(key, gate);
  }
  return gate;
}

/** The 503 past the queue: it names the setting, and when to retry. */
function queueFull(options: ExtractPoolOptions): ChunkdError {
  const name = options.names?.maxQueue ?? 'maxExtractQueue';
  return new ChunkdError(
    'UNAVAILABLE',
    `The server is extracting as many files as it can, with ${options.maxQueue} more waiting (limit ${name}): retry in a few seconds.`,
    {
      'Retry-After': String(Math.max(1, Math.ceil(options.maxMs / 1000 / 4))),
    },
  );
}

const pools = new Map<string, ExtractPool>();

/** The pool for these options, started on first use (its threads stop after a minute idle). */
export function extractPool(options: ExtractPoolOptions): ExtractPool {
  const key = JSON.stringify([options.threads, options.maxMs, options.maxQueue, options.memoryMb, options.nice ?? 0]);
  let pool = pools.get(key);
  if (!pool) {
    pool = new ExtractPool(options);
    pools.set(key, pool);
  }
  return pool;
}

/**
 * Run a task in an extraction worker (heap-capped, timed by maxMs): a recipe's steps when their
 * first step is a chef that needs it (runner.ts). `transfer` names buffers moved there, not copied.
 */
export async function runExtractTask(task: Task, bytes: number, options: ExtractPoolOptions, signal?: AbortSignal, transfer?: ArrayBuffer[]): Promise<Outcome> {
  try {
    return await extractPool(options).run(task, bytes, signal, transfer);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') {
      const name = options.names?.memoryMb ? `, limit ${options.names.memoryMb}` : '';
      throw new ChunkdError(
        'TOO_LARGE',
        `Extracting the file's text needs more memory than this server allows one file (${options.memoryMb} MB${name}): ${FILE_ADVICE}`,
      );
    }
    throw e;
  }
}

/** Stop the extraction workers (tests; a server lets idle ones exit by themselves). */
export async function closeExtractPools(): Promise<void> {
  const all = [...pools.values()];
  pools.clear();
  gates.clear();
  await Promise.all(all.map((p) => p.destroy()));
}
