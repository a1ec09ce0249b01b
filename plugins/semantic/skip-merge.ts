/**
 * skip_window merging: group i may join a later group j within `skipWindow` groups of it
 * (i < j ≤ i + skipWindow + 1) whose similarity to it is ≥ threshold; the most similar such j wins.
 * The groups between i and j are absorbed too, so every merged group is still one contiguous
 * span of the input and offsets stay exact — a topic that is interrupted by a short aside and
 * then resumes becomes one chunk, aside included (as the reference does). Returns the merged ranges.
 */
export function skipMerge(
  ranges: readonly [number, number][],
  similarity: (a: number, b: number) => number,
  threshold: number,
  skipWindow: number,
): [number, number][] {
  if (skipWindow <= 0 || ranges.length <= 1) return ranges.map(([a, b]) => [a, b]);
  const merged: [number, number][] = [];
  for (let i = 0; i < ranges.length;) {
    let best = -1;
    let bestSimilarity = -Infinity;
    for (let j = i + 1; j <= Math.min(i + skipWindow + 1, ranges.length - 1); j++) {
      const s = similarity(i, j);
      if (s >= threshold && s > bestSimilarity) {
        best = j;
        bestSimilarity = s;
      }
    }
    const to = best === -1 ? i : best;
    merged.push([ranges[i]![0], ranges[to]![1]]);
    i = to + 1;
  }
  return merged;
}
