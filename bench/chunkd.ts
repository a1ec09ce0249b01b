/** chunkd's chunkers as the bench runs them: found in the registry, run through the kernel's own path. */
import { discover } from '../kernel/discovery.js';
import type { Registry, Plugin } from '../kernel/registry.js';
import type { Chunk } from '../kernel/chunk.js';
import { inline, Runner, type Doc, type Executor } from '../kernel/engine/index.js';
import { forgetSurrogatePairs } from '../kernel/surrogates.js';

let registry: Promise<Registry> | undefined;
export const loadRegistry = (): Promise<Registry> => (registry ??= discover());

/** A runner as a request gets one, with no output cap: the bench times the work, not the refusals. */
export const benchRunner = (executor: Executor = inline): Runner =>
  new Runner(executor, { maxOutputBytes: Number.MAX_SAFE_INTEGER, maxDocumentOutputBytes: Number.MAX_SAFE_INTEGER, maxChunks: Number.MAX_SAFE_INTEGER });

/** One plugin's chunk objects for each document, through the runner on this thread (steps, offsets, ids: the code a request runs). */
export const runChunks = (plugin: Plugin, config: Record<string, unknown>, docs: Doc[]): Promise<Chunk[][]> =>
  benchRunner().chunks({ steps: [{ plugin, config }], unit: 'codepoint', returnType: 'chunks' }, docs);

/** Names of the registered plugins, chunkers and refineries alike (a bench case names one it needs). */
export async function pluginNames(): Promise<Set<string>> {
  return new Set((await loadRegistry()).list().map((p) => p.name));
}

/**
 * A chunker with a validated config (defaults filled). Each run goes through the runner, the code a
 * request runs after parsing: the plugin's spans become chunk objects with text, id and code-point
 * offsets, so we are timed doing at least as much as a peer that returns chunk texts.
 */
export async function ourChunker(name: string, config: Record<string, unknown>): Promise<(texts: string[]) => Promise<number>> {
  const plugin = (await loadRegistry()).get('chunker', name);
  const validated = plugin.validateConfig({ ...config }, ['config']);
  return async (texts) => {
    // Each call pays for its texts as a request would: the surrogate-pair scan the kernel keeps for
    // the last text (shared by counting and offsets within a request) is dropped first.
    forgetSurrogatePairs();
    return (await runChunks(plugin, validated, texts)).reduce((n, list) => n + list.length, 0);
  };
}

/** Why a case that needs `plugin` cannot run here, or undefined when it can. */
export const missingPlugin = (chunkers: ReadonlySet<string>, plugin: string): string | undefined =>
  chunkers.has(plugin) ? undefined : `the '${plugin}' plugin is not in the registry (plugins/${plugin} is missing on this branch)`;

/** A refinery with a validated config: each run refines the same lists of chunks (through the runner, as a request does). */
export async function ourRefinery(name: string, config: Record<string, unknown>): Promise<(lists: Chunk[][]) => Promise<number>> {
  const plugin = (await loadRegistry()).get('refinery', name);
  const validated = plugin.validateConfig({ ...config }, ['config']);
  return async (lists) => (await runChunks(plugin, validated, lists)).reduce((n, list) => n + list.length, 0);
}

/** The chunks a chunker makes of `texts`, as a refinery receives them. */
export async function chunksOf(name: string, config: Record<string, unknown>, texts: string[]): Promise<Chunk[][]> {
  const plugin = (await loadRegistry()).get('chunker', name);
  return runChunks(plugin, plugin.validateConfig({ ...config }, ['config']), texts);
}
