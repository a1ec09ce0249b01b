/**
 * The selection rule of the held-out protocol, pure: from per-corpus figures of a fixed grid,
 * choose a set of at most `max` pipelines on the training corpora, greedily, each time the one that
 * matches or beats (recall ≥ and IoU ≥) the most reference rows not yet matched — a row counted
 * once per training corpus and retriever — ties going to the one that matches more in all, then to
 * grid order. It stops when no pipeline adds a row. The set is then scored on the corpus left out.
 *
 * Before the greedy part, one place per retriever goes to a high-recall member (`highRecall`):
 * greedy coverage alone picks what matches many rows at once, and the set's largest member then
 * fell short of the largest reference rows' recall on the corpus left out.
 */
import type { Point, Retriever } from './folds.js';

export const RETRIEVER_NAMES: Retriever[] = ['bm25', 'embeddings'];

/** Figures of one grid pipeline on one corpus. */
export type Figures = Record<Retriever, Point>;

export interface Fold {
  /** Per corpus: grid name → figures. */
  scores: Map<string, Map<string, Figures>>;
  /** Per corpus: reference row name → its figures. */
  targets: Map<string, Map<string, Figures>>;
}

/** Compared as printed: recall to 0.1, IoU to 0.01 (the reference rows' precision). */
export const dominates = (ours: Point, ref: Point) =>
  Math.round(ours.recall * 10) >= Math.round(ref.recall * 10) && Math.round(ours.iou * 100) >= Math.round(ref.iou * 100);

/** The (corpus, retriever, row) triples a grid pipeline matches on the given corpora. */
function matched(name: string, corpora: string[], fold: Fold): Set<string> {
  const out = new Set<string>();
  for (const c of corpora) {
    const ours = fold.scores.get(c)?.get(name);
    if (!ours) continue;
    for (const [row, ref] of fold.targets.get(c) ?? []) {
      for (const r of RETRIEVER_NAMES) if (dominates(ours[r], ref[r])) out.add(`${c}\t${r}\t${row}`);
    }
  }
  return out;
}

/** The reference rows whose recall a high-recall choice must reach (where a corpus has them). */
export const CEILING_ROWS = ['Chroma FixedTokenChunker 800/400', 'Chroma RecursiveTokenChunker 400/0'];

const meanOf = (g: string, corpora: string[], fold: Fold, pick: (f: Figures) => number) =>
  corpora.reduce((s, c) => s + pick(fold.scores.get(c)!.get(g)!), 0) / corpora.length;

/**
 * For one retriever, the member of `set` that reaches the recall of the ceiling rows on the most
 * (training corpus, row) pairs, ties to the higher mean recall on `train`; undefined when the
 * training corpora have none of those rows.
 */
export function highRecall(set: string[], train: string[], fold: Fold, r: Retriever): string | undefined {
  const pairs = train.flatMap((c) => CEILING_ROWS.map((row) => [c, fold.targets.get(c)?.get(row)] as const)).filter(([, ref]) => ref);
  if (!pairs.length) return undefined;
  const reached = (g: string) => pairs.filter(([c, ref]) => Math.round(fold.scores.get(c)!.get(g)![r].recall * 10) >= Math.round(ref![r].recall * 10)).length;
  const score = new Map(set.map((g) => [g, [reached(g), meanOf(g, train, fold, (f) => f[r].recall)] as const]));
  return [...set].sort((a, b) => score.get(b)![0] - score.get(a)![0] || score.get(b)![1] - score.get(a)![1])[0];
}

/** The choice on `train` from `grid` (names in grid order): a high-recall member per retriever, then greedy. */
export function select(grid: string[], train: string[], fold: Fold, max: number): string[] {
  const covers = new Map(grid.map((g) => [g, matched(g, train, fold)]));
  const done = new Set<string>();
  const chosen: string[] = [];
  for (const r of RETRIEVER_NAMES) {
    const g = highRecall(grid, train, fold, r);
    if (!g || chosen.includes(g) || chosen.length >= max) continue;
    chosen.push(g);
    for (const t of covers.get(g)!) done.add(t);
  }
  while (chosen.length < max) {
    let best: string | undefined;
    let bestNew = 0;
    for (const g of grid) {
      if (chosen.includes(g)) continue;
      const fresh = [...covers.get(g)!].filter((t) => !done.has(t)).length;
      if (fresh > bestNew || (fresh === bestNew && fresh > 0 && covers.get(g)!.size > covers.get(best!)!.size)) {
        best = g;
        bestNew = fresh;
      }
    }
    if (!best) break;
    chosen.push(best);
    for (const t of covers.get(best)!) done.add(t);
  }
  return chosen;
}

/** Per retriever: the reference rows of `corpus` some pipeline of `set` matches, and those none does. */
export function dominance(set: string[], corpus: string, fold: Fold): Record<Retriever, { matched: number; total: number; missed: string[] }> {
  const out = {} as Record<Retriever, { matched: number; total: number; missed: string[] }>;
  const targets = [...(fold.targets.get(corpus) ?? [])];
  for (const r of RETRIEVER_NAMES) {
    const missed = targets
      .filter(
        ([, ref]) =>
          !set.some((g) => {
            const ours = fold.scores.get(corpus)?.get(g);
            return ours && dominates(ours[r], ref[r]);
          }),
      )
      .map(([row]) => row);
    out[r] = { matched: targets.length - missed.length, total: targets.length, missed };
  }
  return out;
}

/** The member of `set` with the highest mean of `pick` over `corpora`. */
export function bestBy(set: string[], corpora: string[], fold: Fold, pick: (f: Figures) => number): string | undefined {
  return [...set].sort((a, b) => meanOf(b, corpora, fold, pick) - meanOf(a, corpora, fold, pick))[0];
}
