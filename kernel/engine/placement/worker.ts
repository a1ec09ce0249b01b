/**
 * The workers' module (the worker pool's and the extraction pool's, imported by entry.cjs): runs a
 * recipe's steps over documents, or a job module, off the main thread. A plugin is known by its manifest file
 * (built-in or from a plugins directory), imported once per worker; its instances are cached per
 * config exactly as on the main thread.
 */
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { importManifest } from '../../discovery.js';
import { isChunkdError } from '../../errors.js';
import { Plugin } from '../../registry.js';
import type { WireResult } from '../recipe.js';
import { runHere } from '../steps/run-here.js';
import { markRetiring } from './retire.js';
import type { Job, Outcome, Task } from './tasks.js';

const plugins = new Map<string, Promise<Plugin>>();

function plugin(source: string): Promise<Plugin> {
  let p = plugins.get(source);
  if (!p) {
    p = importManifest(source).then((m) => new Plugin(m, source));
    plugins.set(source, p);
  }
  return p;
}

const jobModule = async (module: string) => ((await import(module)) as { default: Job<unknown, unknown> }).default;

/** The buffers of results to move back: JSON or vector bytes, a write step's vectors and chunks, a stored document's structure. */
const resultBuffers = (results: WireResult[]): ArrayBuffer[] =>
  results.flatMap((r) => {
    if ('bytes' in r) return [r.bytes.buffer as ArrayBuffer, ...(r.rows ? [r.rows.vectors.buffer as ArrayBuffer, r.rows.chunks.buffer as ArrayBuffer] : [])];
    if ('stored' in r && r.stored.structureJson) return [r.stored.structureJson.buffer as ArrayBuffer];
    return [];
  });

/** An outcome whose buffers are moved to the calling thread, not copied. */
const moved = (outcome: Outcome, transfer: ArrayBuffer[]): Outcome =>
  Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: outcome } as never) as unknown as Outcome;

/**
 * A task that grew the worker's heap by this much (bytes) leaves the worker to be replaced (a
 * 100,000-chunk candidate grows it by ~250 MB). Measured against the heap before the task, not a
 * fixed size: a worker that holds large plugins (models, vocabularies) is not replaced after every
 * small task.
 */
const LARGE_GROWTH = 128 * 1024 * 1024;

/**
 * A worker that a task grew past LARGE_GROWTH is replaced once it has answered (placement/retire.ts):
 * collecting its heap was not enough (bench/big-write.ts, 100,000 chunks to LanceDB written twice:
 * RSS 5 s after the answer 1,009–1,023 MB with the worker's heap collected → 855–906 MB with the
 * worker replaced).
 */
export default async function run(task: Task): Promise<Outcome> {
  const before = getHeapStatistics().total_heap_size;
  const { outcome, transfer } = await runTask(task);
  const answer = getHeapStatistics().total_heap_size - before > LARGE_GROWTH && markRetiring() ? { ...outcome, retire: threadId } : outcome;
  return transfer.length ? moved(answer, transfer) : answer;
}

/** The task's outcome and the buffers of it to move. */
async function runTask(task: Task): Promise<{ outcome: Outcome; transfer: ArrayBuffer[] }> {
  try {
    if (task.kind === 'warm') {
      await Promise.all([...task.sources.map(plugin), ...(task.jobs ?? []).map(jobModule)]);
      return { outcome: { done: null }, transfer: [] };
    }
    if (task.kind === 'job') {
      const { value, transfer = [] } = await (await jobModule(task.module))(task.payload, plugin);
      return { outcome: { done: value }, transfer };
    }
    const steps = await Promise.all(task.steps.map(async (s) => ({ plugin: await plugin(s.source), config: s.config })));
    const results: WireResult[] = (await runHere(steps, task.docs, task.options)).map((r) => ('bug' in r ? { bug: stackOf(r.bug) } : r));
    return { outcome: { done: results }, transfer: resultBuffers(results) };
  } catch (e) {
    if (isChunkdError(e)) return { outcome: { error: { code: e.code, detail: e.detail } }, transfer: [] };
    return { outcome: { bug: stackOf(e) }, transfer: [] };
  }
}

const stackOf = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e));
