/**
 * A tokenizer as chunkers see it. Offsets are UTF-16 indices (JavaScript string indices) snapped
 * to code-point boundaries: a token that ends inside a multi-byte character ends after it, so a
 * window of tokens always maps to an exact slice of the input.
 */
export interface Tokenizer {
  readonly name: string;
  /** Exact number of tokens in `text`. */
  count(text: string): number;
  /** End offset of each token of `text`, non-decreasing; its length is `count(text)`. */
  ends(text: string): Uint32Array;
}

/** Number of tokens whose end lies in (start, end]: the exact count of a span cut from `ends`. */
export function tokensIn(ends: Uint32Array, start: number, end: number): number {
  return upperBound(ends, end) - upperBound(ends, start);
}

/** First index whose value is greater than `x`. */
export function upperBound(ends: Uint32Array, x: number): number {
  let lo = 0;
  let hi = ends.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ends[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
