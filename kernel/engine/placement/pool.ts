/**
 * Where work runs: on the calling thread, or in a pool of worker threads (piscina) that keeps
 * CPU-heavy work off the event loop; the cost rule that decides, and how a batch is split so it
 * uses every core.
 */
import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { ChunkdError } from '../../errors.js';
import { shareHost } from '../../host.js';
import { docBuffers, type Doc } from '../docs.js';
import type { RunOptions, WireResult } from '../recipe.js';
import type { Outcome, Task } from './tasks.js';
import { threadNice } from './nice.js';
import { Retirement } from './retire.js';
import { workerEntry } from './worker-entry.js';

/**
 * Below this much work (characters of input × the plugin's cost per character, kernel/cost.ts), a
 * job runs inline: handing it to a worker costs more than it saves. Above it, it runs in a worker,
 * where the request deadline can stop it.
 */
export const INLINE_MAX_CHARS = 64 * 1024;

/** Whether work of this size (characters) and cost per character runs on the calling thread. */
export const runsInline = (chars: number, cost: number, threads: number): boolean => threads === 0 || chars * cost < INLINE_MAX_CHARS;

export interface PoolOptions {
  /** Worker threads; 0 runs everything inline (on the event loop). */
  threads: number;
  /** Manifests each worker imports as it starts, so a first large request does not wait for them. */
  warm?: string[];
  /** Job modules (see job()) each worker imports as it starts. */
  warmJobs?: string[];
  /** How much lower the workers' CPU priority is than the calling thread's (a nice increment; 0 or unset: the same). */
  nice?: number;
  /** Called with the stack of an unexpected failure inside a worker (a bug), before the 500 is answered. */
  onBug?: (stack: string) => void;
}

export const defaultThreads = (): number => availableParallelism();

/** Where the runner places work: worker threads behind it (0: everything runs on the calling thread). */
export interface Executor {
  readonly threads: number;
}

/** Everything on the calling thread (the CLI's chunk command, tests). */
export const inline: Executor = { threads: 0 };

/**
 * An Executor that keeps CPU-heavy work off the event loop: large inputs run in a piscina pool,
 * and a batch is split into one task per thread so it uses every core. Aborting the signal of a
 * running task terminates its worker, so abandoned work does not keep running.
 */
export class WorkerPool implements Executor {
  private readonly pool: Piscina<Task, Outcome> | undefined;
  /** Tasks handed to the workers since the pool started (warm-ups not counted): what tests count to tell pooled work from inline. */
  tasksRun = 0;
  /** The same, by kind: 'job' (a job module, e.g. a request body parsed in a worker), 'run' (a recipe's steps). */
  readonly tasksByKind: Record<'job' | 'run', number> = { job: 0, run: 0 };
  /** Workers a large task left large are replaced (placement/retire.ts). */
  readonly retirement = new Retirement();
  /** Resolves once every worker has started and imported the manifests it was asked to warm. */
  readonly ready: Promise<void>;

  constructor(private readonly options: PoolOptions) {
    if (options.threads > 0) {
      shareHost(); // the workers get the host as it is now (kernel/host.ts)
      this.pool = new Piscina({
        ...workerEntry(this.retirement.workerData),
        maxThreads: options.threads,
        minThreads: options.threads,
        idleTimeout: Infinity,
        loadBalancer: this.retirement.balancer,
        niceIncrement: threadNice(options.nice),
      });
      const sources = options.warm ?? [];
      this.ready = Promise.all(Array.from({ length: options.threads }, () => this.pool!.run({ kind: 'warm', sources, jobs: options.warmJobs }))).then(() => {});
      this.ready.catch(() => {}); // a failed warm-up only means a slower first request
    } else {
      this.ready = Promise.resolve();
    }
  }

  get threads(): number {
    return this.pool ? this.options.threads : 0;
  }

  /**
   * Run a job module's default export (a Job, kernel/engine/placement/worker.ts) in a worker: `transfer` lists the
   * payload's buffers to move there (no copy), and the buffers the job names come back moved too.
   */
  async job<R>(module: string, payload: unknown, transfer: ArrayBuffer[] = [], signal?: AbortSignal): Promise<R> {
    if (!this.pool) throw new Error('WorkerPool.job needs worker threads.');
    this.count('job');
    const outcome = await this.pool.run({ kind: 'job', module, payload }, { signal: signal ?? null, transferList: transfer });
    return this.unwrap(outcome) as R;
  }

  /**
   * Run a recipe's steps over documents in one worker (steps/run-here.ts there): each result comes
   * back as bytes, moved. Documents given as bytes are moved there too.
   */
  async documents(steps: { source: string; config: Record<string, unknown> }[], docs: Doc[], options: RunOptions, signal?: AbortSignal): Promise<WireResult[]> {
    if (!this.pool) throw new Error('WorkerPool.documents needs worker threads.');
    const transfer = docBuffers(docs);
    this.count('run');
    const outcome = await this.pool.run({ kind: 'run', steps, docs, options }, { signal: signal ?? null, transferList: transfer });
    return this.unwrap(outcome) as WireResult[];
  }

  async close(): Promise<void> {
    await this.pool?.destroy();
  }

  private count(kind: keyof WorkerPool['tasksByKind']): void {
    this.tasksRun++;
    this.tasksByKind[kind]++;
  }

  private unwrap(outcome: Outcome): unknown {
    this.retirement.settle(this.pool!, outcome);
    if ('done' in outcome) return outcome.done;
    if ('error' in outcome) throw new ChunkdError(outcome.error.code, outcome.error.detail);
    this.options.onBug?.(outcome.bug);
    throw new Error('A worker failed; see the server log.');
  }
}

/** The groups work is split into over `threads`, or undefined when it is too cheap to leave the calling thread. */
export function split<T>(items: T[], weight: (t: T) => number, threads: number, cost = 1): T[][] | undefined {
  const weights = items.map(weight); // once: a list's weight walks all its chunks' texts
  const size = weights.reduce((n, w) => n + w, 0);
  return runsInline(size, cost, threads) ? undefined : balance(items, (_, i) => weights[i]!, threads);
}

/** An executor that can also run job modules in its workers (a WorkerPool with threads). */
export const runsJobs = (e: Executor): e is WorkerPool => e instanceof WorkerPool && e.threads > 0;

/**
 * Split items into at most `parts` contiguous groups of similar total weight (order is kept, so
 * the concatenated results line up with the input). A group ends before the item whose middle
 * crosses the next boundary: two near-equal documents go to two workers whichever is larger.
 */
export function balance<T>(items: T[], weight: (t: T, index: number) => number, parts: number): T[][] {
  const total = items.reduce((n, t, i) => n + weight(t, i), 0);
  const target = total / Math.max(1, parts);
  const groups: T[][] = [];
  let current: T[] = [];
  let acc = 0;
  for (const [i, item] of items.entries()) {
    const w = weight(item, i);
    if (current.length && groups.length < parts - 1 && acc + w / 2 > target * (groups.length + 1)) {
      groups.push(current);
      current = [];
    }
    current.push(item);
    acc += w;
  }
  if (current.length) groups.push(current);
  return groups;
}
