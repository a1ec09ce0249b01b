import { tokenWindows } from '../../kernel/index.js';

/** A half-open UTF-16 span of the input. */
export interface Piece {
  start: number;
  end: number;
}

/** Cut a sentence [start, end) into pieces of at most `size` tokens: the kernel's windows, without overlap. */
export function capSpan(ends: Uint32Array, start: number, end: number, size: number): Piece[] {
  return tokenWindows(ends, size, 0, start, end).map((w) => ({ start: w.start, end: w.end }));
}

/**
 * Greedy packing of units [from, to) into consecutive ranges whose summed counts stay ≤ size
 * (a single unit over the cap is its own range). Greedy packing is optimal for contiguous ranges,
 * so splitting a group more finely beforehand never yields fewer ranges.
 */
export function packRanges(counts: ArrayLike<number>, from: number, to: number, size: number): [number, number][] {
  const ranges: [number, number][] = [];
  let begin = from;
  let sum = 0;
  for (let i = from; i < to; i++) {
    const c = counts[i]!;
    if (i > begin && sum + c > size) {
      ranges.push([begin, i]);
      begin = i;
      sum = 0;
    }
    sum += c;
  }
  if (to > begin) ranges.push([begin, to]);
  return ranges;
}

/**
 * The exact token count of a packed range, re-packing it when that count exceeds `size`: packing
 * adds the counts of units, which a tokenizer that is not additive over cuts (a cut inside a word,
 * a BPE merge across a sentence edge) can undercount. Greedy again, by exact counts. Returns
 * [from, to, tokens] triples; a range within the cap costs one count.
 */
export function refit(range: [number, number], count: (from: number, to: number) => number, size: number): [number, number, number][] {
  const [from, to] = range;
  const total = count(from, to);
  if (to - from <= 1 || total <= size) return [[from, to, total]];
  const out: [number, number, number][] = [];
  let begin = from;
  let tokens = count(begin, begin + 1);
  for (let i = begin + 1; i < to; i++) {
    const grown = count(begin, i + 1);
    if (grown > size) {
      out.push([begin, i, tokens]);
      begin = i;
      tokens = count(i, i + 1);
    } else {
      tokens = grown;
    }
  }
  out.push([begin, to, tokens]);
  return out;
}
