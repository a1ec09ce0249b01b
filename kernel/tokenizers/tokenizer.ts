/**
 * A tokenizer as chunkers see it. Offsets are UTF-16 indices (JavaScript string indices) snapped
 * to code-point boundaries: a token that ends inside a multi-byte character ends after it, so a
 * window of tokens always maps to an exact slice of the input.
 */
export interface Tokenizer {
  readonly name: string;
  /**
   * True when the count of any span cut on code-point boundaries equals `tokensIn` over the
   * text's `ends` (character, byte): then spans are counted by offset, never re-encoded.
   */
  readonly additive?: boolean;
  /**
   * True when `count` is a plain scan (no model), so re-counting a piece costs no more than
   * finding it: chunkers then count pieces exactly instead of estimating from `ends`.
   */
  readonly cheapCount?: boolean;
  /** Exact number of tokens in `text`. */
  count(text: string): number;
  /** End offset of each token of `text`, non-decreasing; its length is `count(text)`. Read only: it may be a view shared with other calls. */
  ends(text: string): Uint32Array;
  /**
   * Optional, for additive tokenizers: an exact counter for spans of `text`, built once per text.
   * It may skip encoding altogether (ASCII text has one character and one byte per UTF-16 unit).
   */
  spans?(text: string): (start: number, end: number) => number;
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

/** Counts spans of one text by offset; `ends` is the text's encoding, made at most once. */
export interface SpanCounter {
  count(start: number, end: number): number;
  ends(): Uint32Array;
}

/**
 * A counter for spans of `text`, built once per text, at the cost of an offset lookup per span:
 * - the tokenizer's own counter when it has one (character, byte: exact, and no encoding at all
 *   for ASCII text);
 * - a cheap tokenizer (word) re-counts each piece, since a cut inside a word would be miscounted;
 * - otherwise (BPE) the tokens of one encoding of the whole text that end inside the span:
 *   additive over adjacent spans, within a token or two of a recount at each cut.
 * `ends()` is the whole text's encoding, made at most once and shared.
 */
export function spanCounter(tokenizer: Tokenizer, text: string): SpanCounter {
  let ends: Uint32Array | undefined;
  const allEnds = () => (ends ??= tokenizer.ends(text));
  if (tokenizer.spans) return { count: tokenizer.spans(text), ends: allEnds };
  if (tokenizer.cheapCount) return { count: (start, end) => tokenizer.count(text.slice(start, end)), ends: allEnds };
  return { count: (start, end) => tokensIn(allEnds(), start, end), ends: allEnds };
}

/**
 * Tokens in text[start, end): counted by offset in `ends` (the whole text's encoding) when that is
 * exact (an additive tokenizer) or when an estimate is enough; otherwise the span is re-encoded,
 * since a BPE or word count of a cut piece can differ from its tokens inside the whole text.
 * (The semantic chunker's helper; spanCounter is the newer form of the same idea.)
 */
export function countSpan(tokenizer: Tokenizer, text: string, ends: Uint32Array, start: number, end: number, estimate = false): number {
  return tokenizer.additive || estimate ? tokensIn(ends, start, end) : tokenizer.count(text.slice(start, end));
}
