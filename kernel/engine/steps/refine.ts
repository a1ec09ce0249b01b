/** The refine step: a refinery over lists of chunks; chunks without an id get the deterministic one, and offsets never move. */
import { orderChunk, type Chunk } from '../../chunk.js';
import { idsReady, standaloneChunkId } from '../../ids.js';
import type { RefineryImpl } from '../../plugin.js';
import type { Plugin } from '../../registry.js';

export async function refineLists(plugin: Plugin, config: Record<string, unknown>, lists: Chunk[][]): Promise<Chunk[][]> {
  if (lists.every((l) => l.length === 0)) return lists.map(() => []);
  const impl = (await plugin.instance(config)) as RefineryImpl;
  await idsReady;
  const out: Chunk[][] = [];
  for (const list of lists) {
    const withIds = list.map((c) => (c.id ? c : { ...c, id: standaloneChunkId(c.text, c.start_index, c.end_index) }));
    out.push(list.length ? (await impl.refine(withIds)).map((c) => orderChunk(c)) : []);
  }
  return out;
}
