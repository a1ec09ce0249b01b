/**
 * Hybrid search: one ranking from a text retriever's hits (BM25, a full-text index) and a vector
 * retriever's hits (cosine with an embedding model). Pure: no store, no model. A store's `hybrid`
 * mode and evaluation's exact `hybrid` retriever both call `fuse`, so evaluation measures what a
 * store serves.
 *
 * Scores are "higher is better" on each list (a caller turns a distance into a similarity first);
 * their scales need not agree: the rank rules read only ranks, the score rules normalise each list
 * per query. Every rule breaks a tie by the text list's order, then the vector list's, so a rule
 * that gives the vector list no weight returns the text list exactly.
 *
 * The rules compared (bench/quality/modes.ts chose among them by leaving one corpus out):
 * - `rrf`: weighted reciprocal rank, w / (k + rank in text) + (1 − w) / (k + rank in vector), a
 *   list a hit is absent from adding nothing;
 * - `score`: w · text' + (1 − w) · vector', each list's scores min-max (or z-score) normalised per
 *   query, a hit absent from a list taking that list's lowest normalised score;
 * - `rerank`: the text list's first `depth` hits, ordered by w · text' + (1 − w) · vector' (min-max
 *   over those hits; w = 0 orders them by vector score alone), then the vector list's other hits in
 *   its order (so a query few chunks match still gets hits). The vector list must carry a score for
 *   each text candidate (a store computes them from the candidates' stored vectors); one it lacks
 *   counts as the lowest.
 */

export interface Hit<K = string> {
  id: K;
  score: number;
}

export type FusionRule =
  | { rule: 'rrf'; text_weight: number; k: number; depth: number }
  | { rule: 'score'; text_weight: number; normalise: 'minmax' | 'zscore'; depth: number }
  | { rule: 'rerank'; text_weight: number; depth: number };

/** A fused hit: its fused score, and where it stood in each list (1-based; absent: undefined). */
export interface FusedHit<K = string> extends Hit<K> {
  text_rank?: number;
  vector_rank?: number;
}

/**
 * The fused ranking, best first, at most `limit` hits (the k asked for; default: every hit of
 * either list that the rule keeps). Each list, best first, is read to the rule's `depth` or to
 * `limit` if that is more: a caller asks each retriever for that many hits.
 */
export function fuse<K>(text: readonly Hit<K>[], vector: readonly Hit<K>[], rule: FusionRule, limit = Infinity): FusedHit<K>[] {
  const depth = Math.max(rule.depth, Number.isFinite(limit) ? limit : 0);
  const t = text.slice(0, depth);
  // rerank reads the vector list for the text candidates' scores, wherever they stand in it
  const v = rule.rule === 'rerank' ? vector : vector.slice(0, depth);
  const w = rule.text_weight;
  if (!(w >= 0 && w <= 1)) throw new RangeError(`text_weight must be between 0 and 1, not ${w}`);
  const entries = new Map<K, { id: K; t?: number; v?: number; tScore?: number; vScore?: number }>();
  t.forEach((h, i) => {
    if (!entries.has(h.id)) entries.set(h.id, { id: h.id, t: i + 1, tScore: h.score });
  });
  v.forEach((h, i) => {
    const e = entries.get(h.id);
    if (e) {
      if (e.v === undefined) Object.assign(e, { v: i + 1, vScore: h.score });
    } else if (rule.rule !== 'rerank') entries.set(h.id, { id: h.id, v: i + 1, vScore: h.score });
  });
  const all = [...entries.values()];
  let scored: { e: (typeof all)[number]; s: number }[];
  if (rule.rule === 'rrf') {
    scored = all.map((e) => ({ e, s: (e.t ? w / (rule.k + e.t) : 0) + (e.v ? (1 - w) / (rule.k + e.v) : 0) }));
  } else {
    const how = rule.rule === 'score' ? rule.normalise : 'minmax';
    // rerank: the text candidates' own vector scores are what is normalised
    const nt = normaliser(
      t.map((h) => h.score),
      how,
    );
    const nv = normaliser(rule.rule === 'rerank' ? all.filter((e) => e.vScore !== undefined).map((e) => e.vScore!) : v.map((h) => h.score), how);
    scored = all.map((e) => ({
      e,
      s: w * (e.tScore === undefined ? nt.low : nt.of(e.tScore)) + (1 - w) * (e.vScore === undefined ? nv.low : nv.of(e.vScore)),
    }));
  }
  const far = Number.MAX_SAFE_INTEGER;
  scored.sort((a, b) => b.s - a.s || (a.e.t ?? far) - (b.e.t ?? far) || (a.e.v ?? far) - (b.e.v ?? far));
  const out: FusedHit<K>[] = scored
    .slice(0, limit)
    .map(({ e, s }) => ({ id: e.id, score: s, ...(e.t ? { text_rank: e.t } : {}), ...(e.v ? { vector_rank: e.v } : {}) }));
  if (rule.rule === 'rerank') {
    // after the candidates, the vector list's own hits (scored below every candidate)
    const seen = new Set(out.map((h) => h.id));
    const low = Math.min(0, ...out.map((h) => h.score)) - 1;
    vector.forEach((h, i) => {
      if (out.length >= limit || seen.has(h.id)) return;
      seen.add(h.id);
      out.push({ id: h.id, score: low, vector_rank: i + 1 });
    });
  }
  return out;
}

/** Per-query normalisation of one list's scores; `low` is what a hit absent from the list takes. */
function normaliser(scores: readonly number[], how: 'minmax' | 'zscore'): { of: (s: number) => number; low: number } {
  if (!scores.length) return { of: () => 0, low: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const s of scores) {
    if (s < min) min = s;
    if (s > max) max = s;
    sum += s;
  }
  if (how === 'minmax') {
    // one score, or all equal: every hit of the list is as good as the best
    const span = max - min;
    return { of: (s) => (span > 0 ? (s - min) / span : 1), low: 0 };
  }
  const mean = sum / scores.length;
  const sd = Math.sqrt(scores.reduce((a, s) => a + (s - mean) ** 2, 0) / scores.length);
  const of = (s: number) => (sd > 0 ? (s - mean) / sd : 0);
  return { of, low: of(min) };
}

/**
 * The fusion a model's collection uses, by the model its vectors came from. Measured by leaving
 * one corpus out over the five corpora of Chroma's chunking evaluation (bench/quality/modes.ts,
 * bench/results.md "Search modes held out"): with the built-in model no text weight below 1 held
 * out. Every fit that let its vectors into the top 5 either fell more than 1.0 point of recall@5
 * below BM25 on a corpus left out, or gained nothing over BM25. So its hybrid is BM25's ranking,
 * and the vector hits follow where BM25 runs out (a query none of whose words a chunk has still
 * gets hits).
 */
export const FUSION_BY_MODEL: Readonly<Record<string, FusionRule>> = {
  'chunkd/glove-sif-100d': { rule: 'rrf', text_weight: 1, k: 60, depth: 100 },
};

/**
 * Any other model (an ONNX or Model2Vec folder, an OpenAI-compatible API): equal weights, reciprocal
 * rank with k = 60 (Cormack, Clarke and Büttcher, SIGIR 2009; the constant most systems ship).
 * Not measured here: no such model can be fetched where this was measured. What supports it: on
 * this benchmark a strong sentence encoder is about BM25's equal (Chroma's report: OpenAI's
 * text-embedding-3-large, RecursiveTokenChunker 200/0, recall 88.1 over its five corpora; BM25 with
 * the same chunker reaches 85.1 over one index of three of them, 80.5 on pubmed and 93.3 on
 * chatlogs), and equal fusion of two retrievers that good with different errors is the case where
 * fusion beats both. A model of its own measured rule belongs in FUSION_BY_MODEL; `chunkd eval
 * --retriever hybrid` against `bm25` and `embeddings` measures it on a user's own questions.
 */
export const DEFAULT_FUSION: FusionRule = { rule: 'rrf', text_weight: 0.5, k: 60, depth: 100 };

/** The fusion for a collection whose vectors came from `model` (a model id as recorded with the collection). */
export function fusionFor(model: string | null | undefined): FusionRule {
  return (model && FUSION_BY_MODEL[model]) || DEFAULT_FUSION;
}
