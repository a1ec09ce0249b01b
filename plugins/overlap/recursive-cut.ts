import { sentenceSplitter, tokensIn, type Rule, type Splitter } from '../../kernel/index.js';
import { tokenCut, type Cut, type Side } from './token-cut.js';

/**
 * Recursive mode: the context is whole pieces of the neighbour at the recipe's first level
 * (paragraphs), nearest first, as many as fit in `k` tokens together; when even the nearest piece
 * does not fit, the same happens inside that piece at the next level (sentences, pauses, words),
 * and the token level cuts exactly. Pieces keep their delimiters and spaces, so a context never
 * starts or ends inside a word unless a single word is larger than the whole context. Counts come
 * from one encoding of the neighbour (`ends`), so the pieces' counts add up.
 */
export function recursiveCutter(levels: readonly Rule[]): (text: string, ends: Uint32Array, k: number, side: Side) => Cut {
  const splitters = levels.map((l): Splitter | null => l && sentenceSplitter({ delim: l.delimiters, includeDelim: l.includeDelim, minCharacters: 0 }));
  return (text, ends, k, side) => {
    let start = 0;
    let end = text.length;
    if (k <= 0) return tokenCut(ends, start, end, 0, side);
    const all = tokensIn(ends, start, end);
    if (all <= k) return { start, end, tokens: all };
    for (const split of splitters) {
      if (!split) break;
      const pieces = split(text, start, end);
      if (side === 'tail') pieces.reverse();
      let taken = 0;
      let tokens = 0;
      for (const p of pieces) {
        const n = tokensIn(ends, p.start, p.end);
        if (tokens + n > k) break;
        tokens += n;
        taken++;
      }
      if (taken > 0) {
        const edge = pieces[taken - 1]!;
        return side === 'head' ? { start, end: edge.end, tokens } : { start: edge.start, end, tokens };
      }
      ({ start, end } = pieces[0]!); // the nearest piece alone is too big: look inside it at the next level
    }
    return tokenCut(ends, start, end, k, side);
  };
}
