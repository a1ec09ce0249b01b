/** What crosses to a worker (a task) and back (its outcome): plain data, errors as data. */
import type { ErrorCode, Issue } from '../../errors.js';
import type { Plugin } from '../../registry.js';
import type { Doc } from '../docs.js';
import type { RunOptions } from '../recipe.js';

export type Task =
  | { kind: 'warm'; sources: string[]; jobs?: string[] }
  | { kind: 'job'; module: string; payload: unknown }
  /** A recipe's steps over documents (steps/run-here.ts), each result made there. */
  | { kind: 'run'; steps: { source: string; config: Record<string, unknown> }[]; docs: Doc[]; options: RunOptions };

/**
 * A job module's default export (see WorkerPool.job): runs in a worker with the worker's plugin
 * cache, and names the buffers of its answer to move to the main thread instead of copying them.
 */
export type Job<P, R> = (payload: P, plugin: (source: string) => Promise<Plugin>) => Promise<{ value: R; transfer?: ArrayBuffer[] }>;

/**
 * Errors cross the thread boundary as data: a ChunkdError keeps its code and detail; anything else
 * is a bug. `retire`: the thread id of a worker the task left large, to be replaced (placement/worker.ts).
 */
export type Outcome = ({ done: unknown } | { error: { code: ErrorCode; detail: string | Issue[] } } | { bug: string }) & { retire?: number };
