import { rangesBetween, splitPoints, type SplitOptions } from './split-points.js';

export interface AutoThresholdOptions {
  /** The fewest tokens a group may have (min_chunk_size). */
  minTokens: number;
  /** The most tokens a group may have (chunk_size). */
  maxTokens: number;
  /** Bisection stops once the interval is this narrow (threshold_step). */
  step: number;
}

/** Bisection rounds at most: (0, 1) halved this often is narrower than any step worth asking for. */
export const AUTO_MAX_ROUNDS = 30;

/**
 * Chonkie's `threshold: "auto"`: the threshold is searched by bisection, in steps of
 * `threshold_step`, for one at which every semantic group (before the chunk_size cap packs it)
 * holds between `min_chunk_size` and `chunk_size` tokens. Groups too large → a higher threshold
 * (more splits); groups too small → a lower one; both at once → the larger groups win, since the
 * cap would cut them anyway. The number of splits never falls as the threshold rises
 * (split-points.ts), which is what makes bisection sound. Returns the threshold found, or the last
 * one tried when none fits within the step.
 */
export function autoThreshold(
  similarities: ArrayLike<number>,
  units: number,
  counts: readonly number[],
  opts: Omit<SplitOptions, 'threshold'>,
  auto: AutoThresholdOptions,
): number {
  const prefix = [0];
  for (const c of counts) prefix.push(prefix.at(-1)! + c);
  let lo = 0;
  let hi = 1;
  let threshold = 0.5;
  for (let round = 0; round < AUTO_MAX_ROUNDS && hi - lo > auto.step; round++) {
    threshold = (lo + hi) / 2;
    const sizes = rangesBetween(splitPoints(similarities, units, { ...opts, threshold }), units).map(([a, b]) => prefix[b]! - prefix[a]!);
    if (sizes.some((n) => n > auto.maxTokens)) lo = threshold;
    else if (sizes.some((n) => n < auto.minTokens)) hi = threshold;
    else break;
  }
  return threshold;
}
