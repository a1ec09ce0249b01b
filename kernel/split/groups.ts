/**
 * Chonkie's `merge_splits` grouping (its core's `find_merge_indices`): from each piece, take the
 * most consecutive pieces whose counts sum to ≤ `size` (an exact fit stays in the group), at least
 * one; so a piece over `size` is a group of its own, and when every piece is over `size` they come
 * back unchanged. Returns the exclusive end index of each group, ascending, the last = counts.length.
 */
export function groupEnds(counts: ArrayLike<number>, size: number): number[] {
  const n = counts.length;
  const ends: number[] = [];
  for (let i = 0; i < n;) {
    let sum = counts[i]!;
    let j = i + 1;
    while (j < n && sum + counts[j]! <= size) sum += counts[j++]!;
    ends.push(j);
    i = j;
  }
  return ends;
}
