/**
 * The pool's worker: runs a plugin's chunk or refine step off the main thread. A plugin is known
 * by its manifest file (built-in or from a plugins directory), imported once per worker; its
 * instances are cached per config exactly as on the main thread.
 */
import { Piscina } from 'piscina';
import type { Structure } from '../../chef/document.js';
import type { Chunk } from '../../chunk.js';
import { loadManifest } from '../../discovery.js';
import { isChunkdError, type ErrorCode, type Issue } from '../../errors.js';
import type { OffsetUnit } from '../../offsets.js';
import { Plugin } from '../../registry.js';
import { chunkMany, refineMany } from '../steps/chunk.js';
import { runHere, type Doc, type RunOptions, type WireResult } from '../runner.js';

export type Task =
  | { kind: 'warm'; sources: string[]; jobs?: string[] }
  | { kind: 'chunk'; source: string; config: Record<string, unknown>; texts: string[]; unit: OffsetUnit; structures?: (Structure | undefined)[] }
  | { kind: 'refine'; source: string; config: Record<string, unknown>; lists: Chunk[][] }
  | { kind: 'job'; module: string; payload: unknown }
  /** The document runner's work (kernel/runner.ts): steps over documents, each result as JSON bytes. */
  | { kind: 'run'; steps: { source: string; config: Record<string, unknown> }[]; docs: Doc[]; options: RunOptions };

/**
 * A job module's default export (see WorkerPool.job): runs in a worker with the worker's plugin
 * cache, and names the buffers of its answer to move to the main thread instead of copying them.
 */
export type Job<P, R> = (payload: P, plugin: (source: string) => Promise<Plugin>) => Promise<{ value: R; transfer?: ArrayBuffer[] }>;

/** Errors cross the thread boundary as data: a ChunkdError keeps its code and detail; anything else is a bug. */
export type Outcome = { ok: Chunk[][] } | { done: unknown } | { error: { code: ErrorCode; detail: string | Issue[] } } | { bug: string };

const plugins = new Map<string, Promise<Plugin>>();

function plugin(source: string): Promise<Plugin> {
  let p = plugins.get(source);
  if (!p) {
    p = typescriptLoader().then(() => loadManifest(source)).then((m) => new Plugin(m, source));
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

export default async function run(task: Task): Promise<Outcome> {
  try {
    if (task.kind === 'warm') {
      await Promise.all([...task.sources.map(plugin), ...(task.jobs ?? []).map(jobModule)]);
      return { ok: [] };
    }
    if (task.kind === 'job') {
      const { value, transfer = [] } = await (await jobModule(task.module))(task.payload, plugin);
      return Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: { done: value } } as never) as unknown as Outcome;
    }
    if (task.kind === 'run') {
      const steps = await Promise.all(task.steps.map(async (s) => ({ plugin: await plugin(s.source), config: s.config })));
      const results: WireResult[] = (await runHere(steps, task.docs, task.options)).map((r) => ('bug' in r ? { bug: stackOf(r.bug) } : r));
      const transfer = results.flatMap((r) => ('bytes' in r ? [r.bytes.buffer as ArrayBuffer, ...(r.rows ? [r.rows.vectors.buffer as ArrayBuffer] : [])] : []));
      return Piscina.move({ [Piscina.transferableSymbol]: transfer, [Piscina.valueSymbol]: { done: results } } as never) as unknown as Outcome;
    }
    const p = await plugin(task.source);
    return { ok: task.kind === 'chunk' ? await chunkMany(p, task.config, task.texts, task.unit, undefined, task.structures) : await refineMany(p, task.config, task.lists) };
  } catch (e) {
    if (isChunkdError(e)) return { error: { code: e.code, detail: e.detail } };
    return { bug: stackOf(e) };
  }
}

const stackOf = (e: unknown): string => (e instanceof Error ? (e.stack ?? e.message) : String(e));
