import type { Span } from '../chunk.js';
import { tokensIn, upperBound } from './tokenizer.js';

/**
 * Windows of `size` tokens stepping by `size - overlap`, cut from one encoding of the text (its
 * `ends`), over text[start, end) (the whole text by default). Token ends are snapped up to
 * code-point boundaries, so tokens that share an end belong to one character: a window never ends
 * inside a character (it ends before it, or, when that character alone is wider than the window,
 * after it), so no window exceeds `size` unless one character does. `tokenCount` counts the tokens
 * that end inside the window, so counts of adjacent windows add up. Past `maxSpans` spans it
 * stops (one more than that is returned: the caller refuses the text).
 */
export function tokenWindows(
  ends: Uint32Array,
  size: number,
  overlap: number,
  start = 0,
  end = ends.length ? ends[ends.length - 1]! : 0,
  maxSpans = Infinity,
): Span[] {
  const from = upperBound(ends, start);
  let to = upperBound(ends, end); // tokens [from, to) end inside (start, end]
  // A range cut inside a token (at a delimiter) holds that token's head: it is a token of this
  // range too (its end clamped to the range's), so no window holds more than `size` pieces of tokens.
  if ((to === from ? start : ends[to - 1]!) < end && to < ends.length) to++;
  if (to === from) return end > start ? [{ start, end, tokenCount: 0 }] : [];
  const endAt = (k: number) => Math.min(ends[k]!, end);
  const insideChar = (k: number) => k + 1 < to && endAt(k + 1) === endAt(k);
  const spans: Span[] = [];
  let lastEnd = start;
  for (let first = from; first < to;) {
    let last = Math.min(first + size, to) - 1;
    while (last >= first && insideChar(last)) last--;
    if (last < first) for (last = first; insideChar(last);) last++;
    const s = first === from ? start : endAt(first - 1);
    const e = last === to - 1 ? end : endAt(last);
    if (e > lastEnd && e > s) {
      spans.push({ start: s, end: e, tokenCount: tokensIn(ends, s, e) });
      lastEnd = e;
      if (spans.length > maxSpans) break; // more than the caller can use (ChunkContext.maxSpans): it refuses the text
    }
    if (last === to - 1) break;
    first = Math.min(first + size - overlap, last + 1);
  }
  return spans;
}
