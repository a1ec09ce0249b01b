/**
 * The workers' entry (the worker pool's and the extraction pool's): runs a recipe's steps over
 * documents, or a job module, off the main thread. A plugin is known by its manifest file
 * (built-in or from a plugins directory), imported once per worker; its instances are cached per
 * config exactly as on the main thread.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Piscina } from 'piscina';
import { loadManifest } from '../../discovery.js';
import { isChunkdError } from '../../errors.js';
import { Plugin } from '../../registry.js';
import type { WireResult } from '../recipe.js';
import { runHere } from '../steps/run-here.js';
import type { Job, Outcome, Task } from './tasks.js';

const plugins = new Map<string, Promise<Plugin>>();

function plugin(source: string): Promise<Plugin> {
  let p = plugins.get(source);
  if (!p) {
    p = typescriptLoader()
      .then(() => loadManifest(source))
      .then((m) => new Plugin(m, source));
    plugins.set(source, p);
  }
  return p;
}

const jobModule = (module: string) => typescriptLoader().then(async () => ((await import(module)) as { default: Job<unknown, unknown> }).default);

/**
 * Running from the TypeScript sources (tests, `npm run dev`), a worker thread inherits the
 * main thread's TypeScript loader for require() but not for import(): register it for the
 * plugin manifests. A development dependency, never loaded by the built server.
 */
let tsLoader: Promise<void> | undefined;
function typescriptLoader(): Promise<void> {
  if (!import.meta.url.endsWith('.ts')) return Promise.resolve();
  const api = 'tsx/esm/api';
  return (tsLoader ??= import(api).then((m: { register(): void }) => m.register()));
}

/** The buffers of results to move back: JSON or vector bytes, a write step's vectors and chunks, a stored document's structure. */
const resultBuffers = (results: WireResult[]): ArrayBuffer[] =>
  results.flatMap((r) => {
    if ('bytes' in r) return [r.bytes.buffer as ArrayBuffer, ...(r.rows ? [r.rows.vectors.buffer as ArrayBuffer, r.rows.chunks.buffer as ArrayBuffer] : [])];
    if ('stored' in r && r.stored.structureJson) return [r.stored.structureJson.buffer as ArrayBuffer];
    return [];
  });

const movedOutcome = (value: unknown, transfer: ArrayBuffer[]): Outcome =>
  Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: { done: value } } as never) as unknown as Outcome;

/**
 * A task that grew the worker's heap by this much (bytes) left it mostly garbage (a 100,000-chunk
 * candidate grows it by ~250 MB). Measured against the heap before the task, not a fixed size: a
 * worker that holds large plugins (models, vocabularies) is not collected after every small task.
 */
const LARGE_GROWTH = 128 * 1024 * 1024;

/**
 * V8's full collection, taken as test tools take it: the flag that exposes it is set only while
 * one fresh context is made, so no other context sees a `gc` global. Sought on first need, not as
 * the worker starts. V8's flags are the process's, not the thread's: another worker may turn the
 * flag off between the two steps (workers starting together once made one worker's start throw),
 * so it is tried again, and a worker that cannot have it only skips the collection.
 */
let gc: (() => void) | null | undefined;
function collectGarbage(): void {
  if (gc === undefined) gc = exposedGc();
  gc?.();
}

function exposedGc(): (() => void) | null {
  for (let attempt = 0; attempt < 5; attempt++) {
    setFlagsFromString('--expose-gc');
    try {
      const found = runInNewContext('globalThis.gc') as (() => void) | undefined;
      if (typeof found === 'function') return found;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return null;
}

/**
 * After a large task, the worker collects its garbage before it answers (the chunk graph is
 * unreachable by then; only the answer, its buffers moved, is live). An idle worker allocates
 * nothing, so V8 would keep that heap: the process held the worker's peak while the calling thread
 * wrote the rows (bench/big-write.ts, 100,000 chunks to LanceDB: an evaluation's RSS peak
 * 1.1–1.15 GB → 0.82–0.92 GB, a write's 0.88–0.91 → 0.77). Before the answer, not after: the calling
 * thread is then waiting, not writing rows beside the collection on a two-core machine. The
 * collection (~50–80 ms for ~300 MB) runs only after such a task.
 */
export default async function run(task: Task): Promise<Outcome> {
  const before = getHeapStatistics().total_heap_size;
  const outcome = await runTask(task);
  if (getHeapStatistics().total_heap_size - before > LARGE_GROWTH) collectGarbage();
  return outcome;
}

async function runTask(task: Task): Promise<Outcome> {
  try {
    if (task.kind === 'warm') {
      await Promise.all([...task.sources.map(plugin), ...(task.jobs ?? []).map(jobModule)]);
      return { done: null };
    }
    if (task.kind === 'job') {
      const { value, transfer = [] } = await (await jobModule(task.module))(task.payload, plugin);
      return movedOutcome(value, transfer);
    }
    const steps = await Promise.all(task.steps.map(async (s) => ({ plugin: await plugin(s.source), config: s.config })));
    const results: WireResult[] = (await runHere(steps, task.docs, task.options)).map((r) => ('bug' in r ? { bug: stackOf(r.bug) } : r));
    return movedOutcome(results, resultBuffers(results));
  } catch (e) {
    if (isChunkdError(e)) return { error: { code: e.code, detail: e.detail } };
    return { bug: stackOf(e) };
  }
}

const stackOf = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e));
