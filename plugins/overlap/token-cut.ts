import { upperBound } from '../../kernel/index.js';

/** A context cut from a neighbour: a UTF-16 span of its text and the number of its tokens inside. */
export interface Cut {
  start: number;
  end: number;
  tokens: number;
}

/** Which end of the neighbour the context comes from: the head of the next chunk, or the tail of the previous one. */
export type Side = 'head' | 'tail';

/** First index whose value is at least `x`. */
const lowerBound = (ends: Uint32Array, x: number) => upperBound(ends, x - 1);

/**
 * The first or last `k` tokens of the span [start, end) of a text, from one encoding of the whole
 * text (`ends`, snapped to code points; a span's tokens are those ending inside it, as `tokensIn`
 * counts them). Tokens that share an end are pieces of one character (a byte-level BPE token can
 * end inside it): the cut never splits a character, so it stops before one that would take it
 * over `k` tokens — unless that character alone is wider than `k` tokens, which is then taken
 * whole (as the token chunker does) rather than giving no context at all.
 */
export function tokenCut(ends: Uint32Array, start: number, end: number, k: number, side: Side): Cut {
  const span = ends.subarray(upperBound(ends, start), upperBound(ends, end));
  const n = span.length;
  if (k <= 0 || n === 0) return side === 'head' ? { start, end: start, tokens: 0 } : { start: end, end, tokens: 0 };
  if (k >= n) return { start, end, tokens: n };
  if (side === 'head') {
    const cut = span[k - 1]!;
    if (span[k] !== cut) return { start, end: cut, tokens: k };
    const first = lowerBound(span, cut); // the first token ending where the k-th does
    return first > 0 ? { start, end: span[first - 1]!, tokens: first } : { start, end: cut, tokens: upperBound(span, cut) };
  }
  const cut = span[n - k - 1]!;
  const tokens = n - upperBound(span, cut);
  if (tokens > 0) return { start: cut, end, tokens };
  const first = lowerBound(span, span[n - 1]!); // every one of the last k tokens is inside the last character
  return { start: first > 0 ? span[first - 1]! : start, end, tokens: n - first };
}
