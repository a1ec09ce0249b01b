/**
 * Choosing the hybrid rule and its weights by leaving one corpus out, pure: from each cell's
 * (corpus × pipeline) recall@5 under every candidate rule and under the text and vector modes
 * alone, the rule is chosen on the other corpora and scored on the one left out.
 *
 * The fit, fixed before any fused figure was read (the grid was widened once afterwards, by
 * weights 0.99–0.96 and k 2 and 10; the verdict did not change): a rule is admissible on the training corpora when on
 * every training cell its recall is at most 1.0 point below the better of text and vector there;
 * of the admissible rules, the one with the highest mean training recall; when none is admissible,
 * the one whose worst training cell is least below the better part. Ties go to the earlier rule in
 * the grid.
 */
import type { FusionRule } from '../../kernel/fusion.js';

/** How far below the better part a fused recall may be (points of recall@5). */
export const TOLERANCE = 1.0;

const WEIGHTS = [1, 0.99, 0.98, 0.97, 0.96, ...Array.from({ length: 20 }, (_, i) => Number((0.95 - i * 0.05).toFixed(2)))];

/** The rules compared, text-heaviest first within each family. */
export const RULE_GRID: FusionRule[] = [
  ...[1, 2, 5, 10, 20, 60].flatMap((k) => WEIGHTS.map((w): FusionRule => ({ rule: 'rrf', text_weight: w, k, depth: 100 }))),
  ...(['minmax', 'zscore'] as const).flatMap((normalise) => WEIGHTS.map((w): FusionRule => ({ rule: 'score', text_weight: w, normalise, depth: 100 }))),
  ...[10, 20, 50, 100].flatMap((depth) => WEIGHTS.map((w): FusionRule => ({ rule: 'rerank', text_weight: w, depth }))),
];

export const ruleName = (r: FusionRule): string =>
  r.rule === 'rrf' ? `rrf w ${r.text_weight} k ${r.k}` : r.rule === 'score' ? `${r.normalise} w ${r.text_weight}` : `rerank top ${r.depth} w ${r.text_weight}`;

export const family = (r: FusionRule): string => (r.rule === 'score' ? `score (${r.normalise})` : r.rule);

/** Per cell: its corpus, the better of text and vector, and each rule's recall (RULE_GRID order). */
export interface Cell {
  corpus: string;
  pipeline: string;
  better: number;
  recall: number[];
}

/** The index (into `rules`) chosen on the given cells. */
export function fit(cells: Cell[], rules: number[]): number {
  let best = -1;
  let bestKey: [number, number] = [-Infinity, -Infinity];
  for (const r of rules) {
    let worst = Infinity;
    let sum = 0;
    for (const c of cells) {
      worst = Math.min(worst, c.recall[r]! - c.better);
      sum += c.recall[r]!;
    }
    // admissible rules rank by mean recall, above every inadmissible one, which rank by their worst cell
    const key: [number, number] = worst >= -TOLERANCE - 1e-9 ? [1, sum / cells.length] : [0, worst];
    if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1] + 1e-9)) {
      best = r;
      bestKey = key;
    }
  }
  return best;
}

/** Leave one corpus out: per corpus, the rule chosen on the others. */
export function heldOutRules(cells: Cell[], corpora: string[], rules: number[]): Map<string, number> {
  return new Map(
    corpora.map((c) => [
      c,
      fit(
        cells.filter((x) => x.corpus !== c),
        rules,
      ),
    ]),
  );
}

/**
 * Leave one corpus out for a choice among index-text variants: per corpus, the variant with the
 * highest mean recall over the other corpora's cells; a tie goes to the earlier variant (the first
 * is the chunk's own text, so a variant is kept only where the training corpora say it helps).
 * `recall` maps variant → corpus → recall per pipeline.
 */
export function heldOutVariants<V extends string>(recall: Map<V, Map<string, number[]>>, corpora: string[]): Map<string, V> {
  const variants = [...recall.keys()];
  return new Map(
    corpora.map((held) => {
      const train = corpora.filter((c) => c !== held);
      const mean = (v: V) => {
        const xs = train.flatMap((c) => recall.get(v)!.get(c)!);
        return xs.reduce((a, b) => a + b, 0) / xs.length;
      };
      let best = variants[0]!;
      for (const v of variants.slice(1)) if (mean(v) > mean(best) + 1e-9) best = v;
      return [held, best];
    }),
  );
}
