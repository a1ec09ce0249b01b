import type { Ranks } from './bpe-ranks.js';

/** No pair: tiktoken's Rank::MAX. */
const NONE = 0xffffffff;
const SHIFT = 2 ** 32;

/**
 * tiktoken's byte-pair merge of one piece (`_byte_pair_merge` in its Rust core) in O(n log n)
 * instead of O(n²): the same rule — merge the adjacent pair whose concatenated bytes have the
 * lowest rank, the leftmost on ties, until no adjacent pair is a token — with the parts in a
 * linked list and the pairs in a min-heap keyed by (rank, start). A merge changes only the pairs
 * on either side of it; heap entries they replace are skipped when popped (stale rank or dead
 * start). As in tiktoken, a piece that is a token by itself is that token.
 *
 * `key` is the piece's UTF-8 bytes as a Latin-1 string. Returns each token's end offset in bytes.
 */
export function bytePairEnds(key: string, ranks: Ranks): Uint32Array {
  const n = key.length;
  if (n <= 1 || ranks.map.has(key)) return Uint32Array.of(n);
  const { map, maxBytes } = ranks;
  const next = new Int32Array(n);
  const prev = new Int32Array(n);
  const rankAt = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    next[i] = i + 1;
    prev[i] = i - 1;
  }
  /** Rank of part `i` joined with the part after it. */
  const pairRank = (i: number): number => {
    const j = next[i]!;
    if (j >= n) return NONE;
    const end = j + 1 < n ? next[j]! : n;
    if (end - i > maxBytes) return NONE;
    return map.get(key.slice(i, end)) ?? NONE;
  };

  const heap = new Heap(3 * n);
  for (let i = 0; i < n - 1; i++) {
    const r = pairRank(i);
    rankAt[i] = r;
    if (r !== NONE) heap.add(r * SHIFT + i);
  }
  heap.build();
  const dead = new Uint8Array(n);
  while (heap.size > 0) {
    const top = heap.pop();
    const r = Math.floor(top / SHIFT);
    const i = top - r * SHIFT;
    if (dead[i] || rankAt[i] !== r) continue;
    const j = next[i]!;
    dead[j] = 1;
    const after = next[j]!;
    next[i] = after;
    if (after < n) prev[after] = i;
    const ri = pairRank(i);
    rankAt[i] = ri;
    if (ri !== NONE) heap.push(ri * SHIFT + i);
    const p = prev[i]!;
    if (p >= 0) {
      const rp = pairRank(p);
      rankAt[p] = rp;
      if (rp !== NONE) heap.push(rp * SHIFT + p);
    }
  }
  let count = 0;
  for (let i = 0; i < n; i = next[i]!) count++;
  const ends = new Uint32Array(count);
  let k = 0;
  for (let i = 0; i < n; i = next[i]!) ends[k++] = next[i]!;
  return ends;
}

/** Token ids of a merge's parts (for callers that need ids, and for tests). */
export function idsOf(key: string, ends: Uint32Array, ranks: Ranks): number[] {
  const ids: number[] = [];
  let start = 0;
  for (const end of ends) {
    ids.push(ranks.map.get(key.slice(start, end))!);
    start = end;
  }
  return ids;
}

/** A binary min-heap of doubles in a preallocated array. */
class Heap {
  private readonly a: Float64Array;
  size = 0;
  constructor(capacity: number) {
    this.a = new Float64Array(Math.max(1, capacity));
  }
  /** Append without ordering; call build() before the first pop. */
  add(x: number): void {
    this.a[this.size++] = x;
  }
  build(): void {
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }
  push(x: number): void {
    const a = this.a;
    let i = this.size++;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= x) break;
      a[i] = a[parent]!;
      i = parent;
    }
    a[i] = x;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a[--this.size]!;
    if (this.size > 0) {
      a[0] = last;
      this.down(0);
    }
    return top;
  }
  private down(i: number): void {
    const a = this.a;
    const n = this.size;
    const x = a[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && a[c + 1]! < a[c]!) c++;
      if (a[c]! >= x) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = x;
  }
}
