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
 * The first or last `k` tokens of a text, from one encoding of it (`ends`, snapped to code
 * points). Tokens that share an end are pieces of one character (a byte-level BPE token can end
 * inside it): the cut never splits a character, so it stops before one that would take it over
 * `k` tokens — unless that character alone is wider than `k` tokens, which is then taken whole
 * (as the token chunker does) rather than giving no context at all.
 */
export function tokenCut(ends: Uint32Array, length: number, k: number, side: Side): Cut {
  const n = ends.length;
  if (side === 'head') {
    if (k <= 0 || n === 0) return { start: 0, end: 0, tokens: 0 };
    if (k >= n) return { start: 0, end: length, tokens: n };
    const end = ends[k - 1]!;
    if (ends[k] !== end) return { start: 0, end, tokens: k };
    const first = lowerBound(ends, end); // the first token ending where the k-th does
    return first > 0 ? { start: 0, end: ends[first - 1]!, tokens: first } : { start: 0, end, tokens: upperBound(ends, end) };
  }
  if (k <= 0 || n === 0) return { start: length, end: length, tokens: 0 };
  if (k >= n) return { start: 0, end: length, tokens: n };
  const start = ends[n - k - 1]!;
  const tokens = n - upperBound(ends, start);
  if (tokens > 0) return { start, end: length, tokens };
  const first = lowerBound(ends, ends[n - 1]!); // every one of the last k tokens is inside the last character
  return { start: first > 0 ? ends[first - 1]! : 0, end: length, tokens: n - first };
}
