/** chunkd's chunkers as the bench runs them: found in the registry, run through the kernel's own path. */
import { discover } from '../kernel/discovery.js';
import type { Registry } from '../kernel/registry.js';
import type { Chunk } from '../kernel/chunk.js';
import { chunkMany, refineMany } from '../kernel/engine/steps/chunk.js';
import { forgetSurrogatePairs } from '../kernel/surrogates.js';

let registry: Promise<Registry> | undefined;
export const loadRegistry = (): Promise<Registry> => (registry ??= discover());

/** Names of the registered plugins, chunkers and refineries alike (a bench case names one it needs). */
export async function pluginNames(): Promise<Set<string>> {
  return new Set((await loadRegistry()).list().map((p) => p.name));
}

/**
 * A chunker with a validated config (defaults filled). Each run goes through chunkMany, the code a
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
    return (await chunkMany(plugin, validated, texts, 'codepoint')).reduce((n, list) => n + list.length, 0);
  };
}

/** Why a case that needs `plugin` cannot run here, or undefined when it can. */
export const missingPlugin = (chunkers: ReadonlySet<string>, plugin: string): string | undefined =>
  chunkers.has(plugin) ? undefined : `the '${plugin}' plugin is not in the registry (plugins/${plugin} is missing on this branch)`;

/** A refinery with a validated config: each run refines the same lists of chunks (refineMany, as a request does). */
export async function ourRefinery(name: string, config: Record<string, unknown>): Promise<(lists: Chunk[][]) => Promise<number>> {
  const plugin = (await loadRegistry()).get('refinery', name);
  const validated = plugin.validateConfig({ ...config }, ['config']);
  return async (lists) => (await refineMany(plugin, validated, lists)).reduce((n, list) => n + list.length, 0);
}

/** The chunks a chunker makes of `texts`, as a refinery receives them. */
export async function chunksOf(name: string, config: Record<string, unknown>, texts: string[]): Promise<Chunk[][]> {
  const plugin = (await loadRegistry()).get('chunker', name);
  return chunkMany(plugin, plugin.validateConfig({ ...config }, ['config']), texts, 'codepoint');
}
