/**
 * Okapi BM25 over a fixed list of texts (the chunks of one evaluation): k1 and b as kernel/words.ts BM25, Lucene's
 * idf ln(1 + (N − n + 0.5) / (n + 0.5)), lowercase word tokens (letters and digits, as Python's
 * `[^\W_]+`). No dependency, no stemming, no stop words.
 */
import { BM25, words } from '../../kernel/words.js';

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/** Lowercase word tokens (kernel/words.ts). */
export const tokenize = words;

export class Bm25Index {
  private readonly postings = new Map<string, { docs: number[]; tfs: number[] }>();
  private readonly lengths: Float64Array;
  private readonly avgLength: number;
  private readonly k1: number;
  private readonly b: number;

  constructor(texts: readonly string[], { k1 = BM25.k1, b = BM25.b }: Bm25Options = {}) {
    this.k1 = k1;
    this.b = b;
    this.lengths = new Float64Array(texts.length);
    let total = 0;
    texts.forEach((text, d) => {
      const counts = new Map<string, number>();
      const tokens = tokenize(text);
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, tf] of counts) {
        let p = this.postings.get(t);
        if (!p) this.postings.set(t, (p = { docs: [], tfs: [] }));
        p.docs.push(d);
        p.tfs.push(tf);
      }
      this.lengths[d] = tokens.length;
      total += tokens.length;
    });
    this.avgLength = texts.length ? total / texts.length : 0;
  }

  get size(): number {
    return this.lengths.length;
  }

  /** Lucene's idf of a term found in `n` of the texts. */
  idf(n: number): number {
    const N = this.lengths.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  /** The score of every text for a query; a query word that appears twice counts twice. */
  scores(query: string): Float64Array {
    const out = new Float64Array(this.lengths.length);
    const { k1, b } = this;
    const norm = this.avgLength > 0 ? this.avgLength : 1;
    for (const term of tokenize(query)) {
      const p = this.postings.get(term);
      if (!p) continue;
      const idf = this.idf(p.docs.length);
      for (let i = 0; i < p.docs.length; i++) {
        const d = p.docs[i]!;
        const tf = p.tfs[i]!;
        out[d]! += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * this.lengths[d]!) / norm));
      }
    }
    return out;
  }

  /** The indices of the `k` best texts, best first; equal scores keep the texts' order. */
  top(query: string, k: number): number[] {
    return topK(this.scores(query), k);
  }
}

/** The indices of the `k` highest scores, highest first; equal scores keep index order. */
export function topK(scores: ArrayLike<number>, k: number): number[] {
  const n = Math.min(k, scores.length);
  if (n > 64)
    return Array.from({ length: scores.length }, (_, i) => i)
      .sort((a, b) => scores[b]! - scores[a]! || a - b)
      .slice(0, n);
  const best: number[] = []; // kept sorted: higher score first, then lower index
  for (let i = 0; i < scores.length; i++) {
    const s = scores[i]!;
    if (best.length === n && !(s > scores[best[n - 1]!]!)) continue;
    let at = best.length;
    while (at > 0 && s > scores[best[at - 1]!]!) at--;
    best.splice(at, 0, i);
    if (best.length > n) best.pop();
  }
  return best;
}
