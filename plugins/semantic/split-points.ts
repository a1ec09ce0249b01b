import { savgol, type SavgolOptions } from './savgol.js';

export interface SplitOptions extends SavgolOptions {
  /** |first derivative| below this counts as flat. */
  tolerance: number;
  /** In (0, 1): keep minima at or below this percentile of all minima values. */
  threshold: number;
  /** Smallest number of units between two splits, and before the first and after the last. */
  minUnits: number;
  /** Similarity i compares units i..i+similarityWindow-1 with unit i+similarityWindow. */
  similarityWindow: number;
}

/** Curvature below this is rounding noise of a straight stretch, not a valley. */
const CURVATURE_FLOOR = 1e-9;

/**
 * Local minima of the similarity curve, judged on its Savitzky–Golay fit: a sample where the
 * fitted slope is flat (|f'| < tolerance) and the curve bends up (f'' > 0), as the reference
 * does; and, which the reference misses, a sharp dip whose fitted slope jumps from falling to
 * rising between two samples without ever being near 0 at one (topic changes under a static
 * model dip that sharply): there the lower of the two samples. Returns increasing indices and the
 * similarity at each. With fewer samples than the filter window the curve cannot be fitted, and
 * (as in the reference) there are no minima.
 */
export function localMinima(similarities: ArrayLike<number>, opts: SavgolOptions & { tolerance: number }): { indices: number[]; values: number[] } {
  const indices: number[] = [];
  if (similarities.length >= opts.window) {
    const d1 = savgol(similarities, opts, 1);
    const d2 = savgol(similarities, opts, 2);
    for (let i = 0; i < similarities.length; i++) {
      const flat = Math.abs(d1[i]!) < opts.tolerance && d2[i]! > CURVATURE_FLOOR;
      const turn = i > 0 && d1[i - 1]! < 0 && d1[i]! >= 0;
      if (turn && similarities[i - 1]! < similarities[i]!) {
        if (indices.at(-1) !== i - 1) indices.push(i - 1);
        if (flat) indices.push(i);
      } else if (flat || turn) {
        indices.push(i);
      }
    }
  }
  return { indices, values: indices.map((i) => similarities[i]!) };
}

/** The p-quantile (p in [0, 1]) with linear interpolation between order statistics, as numpy's default. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/**
 * Unit indices where a new group starts, in increasing order, for `units` units whose
 * window similarities are given (similarities.length === units - similarityWindow).
 *
 * A higher threshold keeps a superset of the minima, and taking the leftmost minimum that is far
 * enough from the previous split is the largest spaced selection of any candidate set, so the
 * number of splits never falls as the threshold rises: lower threshold → fewer, larger chunks.
 */
export function splitPoints(similarities: ArrayLike<number>, units: number, opts: SplitOptions): number[] {
  const { indices, values } = localMinima(similarities, opts);
  if (indices.length === 0) return [];
  const cutoff = percentile(values, opts.threshold);
  const splits: number[] = [];
  let last = 0; // the start of the current group
  for (const [k, i] of indices.entries()) {
    const start = i + opts.similarityWindow;
    if (values[k]! > cutoff) continue;
    if (start - last < opts.minUnits || units - start < opts.minUnits) continue;
    splits.push(start);
    last = start;
  }
  return splits;
}

/** Half-open unit ranges [from, to) between consecutive split points, covering 0..units. */
export function rangesBetween(splits: readonly number[], units: number): [number, number][] {
  const edges = [0, ...splits, units];
  const ranges: [number, number][] = [];
  for (let k = 1; k < edges.length; k++) if (edges[k]! > edges[k - 1]!) ranges.push([edges[k - 1]!, edges[k]!]);
  return ranges;
}
