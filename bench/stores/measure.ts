/** Latency percentiles and recall against exact search, shared by the stores bench's scripts. */
import { loadavg } from 'node:os';
import type { Table } from '@lancedb/lancedb';
import type { Query } from './corpus.js';

export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** The exact top k of each query (a flat scan that ignores any vector index), by id. */
export async function exactTop(table: Table, queries: { vector: Float32Array }[], k: number): Promise<string[][]> {
  const out: string[][] = [];
  for (const q of queries)
    out.push((await table.vectorSearch(q.vector).distanceType('cosine').bypassVectorIndex().limit(k).select(['id']).toArray()).map((r) => r.id as string));
  return out;
}

/** Mean share of each exact top k that a search found (recall@k, k the exact lists' length). */
export function recallAt(found: string[][], exact: string[][]): number {
  let sum = 0;
  exact.forEach((want, i) => {
    const got = new Set(found[i]);
    sum += want.length ? want.filter((id) => got.has(id)).length / want.length : 1;
  });
  return sum / exact.length;
}

/** Each query searched once (the first 20 twice, to warm caches and index pages): p50/p99 latency in ms and the ids found. */
export async function timeSearches(qs: Query[], search: (q: Query) => Promise<string[]>): Promise<{ p50: number; p99: number; found: string[][] }> {
  const times: number[] = [];
  const found: string[][] = [];
  for (const q of qs.slice(0, 20)) await search(q); // warm-up: caches and index pages
  for (const q of qs) {
    const t = performance.now();
    found.push(await search(q));
    times.push(performance.now() - t);
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), found };
}

/** The load averages (1, 5, 15 min) as a table cell: `2.1 2.3 2.5`. */
export const loadAverage = (digits = 1): string =>
  loadavg()
    .map((x) => x.toFixed(digits))
    .join(' ');

/** A vector as pgvector's text literal: `[0.1,0.2,…]`. */
export const pgVector = (v: ArrayLike<number>): string => `[${Array.from(v).join(',')}]`;
