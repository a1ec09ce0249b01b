/**
 * A fraction of a token count, floored, as chunk_overlap and context_size read a number in (0, 1).
 * The factor 1 + 1e-12 keeps decimal fractions exact: 0.29 × 100 is 28.999999999999996 in binary.
 */
export function floorFraction(fraction: number, tokens: number): number {
  return Math.floor(fraction * tokens * (1 + 1e-12));
}
