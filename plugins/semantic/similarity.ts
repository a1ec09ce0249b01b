/**
 * Window similarities from per-unit vectors, so each unit is embedded exactly once.
 *
 * The window i..i+w-1 is represented by the sum of its unit vectors weighted by token count. For a
 * static (mean-pooled) model such as the embedded one, that is the embedding of the joined window
 * text up to the model's final normalisation; for a contextual encoder it is an approximation. It
 * saves embedding every window text (w times the embedding work).
 */
export function windowSimilarities(vectors: readonly ArrayLike<number>[], weights: ArrayLike<number>, window: number): Float64Array {
  const count = Math.max(0, vectors.length - window);
  const out = new Float64Array(count);
  const sum = new Float64Array(vectors[0]?.length ?? 0);
  // Each window is summed afresh (w·dim work) rather than slid: no drift, and an all-unknown window stays exactly zero.
  for (let i = 0; i < count; i++) out[i] = cosineOf(groupVector(vectors, weights, i, i + window, sum), vectors[i + window]!);
  return fillGaps(out);
}

/** Token-weighted sum of the vectors of units [from, to): the vector of a group of units (written into `into` when given). */
export function groupVector(
  vectors: readonly ArrayLike<number>[],
  weights: ArrayLike<number>,
  from: number,
  to: number,
  into = new Float64Array(vectors[from]?.length ?? 0),
): Float64Array {
  const sum = into.fill(0);
  for (let k = from; k < to; k++) {
    const v = vectors[k]!;
    const f = weights[k]!;
    for (let d = 0; d < sum.length; d++) sum[d]! += f * v[d]!;
  }
  return sum;
}

/** Cosine similarity; NaN when either vector is zero (a text with no known word carries no signal). */
export function cosineOf(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let d = 0; d < a.length; d++) {
    dot += a[d]! * b[d]!;
    na += a[d]! * a[d]!;
    nb += b[d]! * b[d]!;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : NaN;
}

/**
 * Replace NaN (no signal) by linear interpolation between the nearest defined neighbours (the
 * nearest one at the edges), so a unit of unknown words neither draws a split nor hides one.
 * All NaN → all 1 (nothing to split on).
 */
export function fillGaps(values: Float64Array): Float64Array {
  const known: number[] = [];
  values.forEach((v, i) => Number.isNaN(v) || known.push(i));
  if (known.length === 0) return values.fill(1);
  for (let i = 0, k = 0; i < values.length; i++) {
    if (!Number.isNaN(values[i]!)) continue;
    while (k < known.length && known[k]! < i) k++;
    const right = known[k];
    const left = known[k - 1];
    if (left === undefined) values[i] = values[right!]!;
    else if (right === undefined) values[i] = values[left]!;
    else values[i] = values[left]! + ((values[right]! - values[left]!) * (i - left)) / (right - left);
  }
  return values;
}
