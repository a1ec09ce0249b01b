import type { Span } from '../../kernel/index.js';

/**
 * The window that starts at candidate `from`: the candidates after it, in order, while their token
 * counts add up to at most `size` — always at least one. Returns its end (exclusive index). The
 * LLM may end a chunk anywhere inside the window, never beyond it, so no chunk exceeds `size`.
 */
export function windowEnd(candidates: readonly Span[], from: number, size: number): number {
  let sum = candidates[from]!.tokenCount;
  let end = from + 1;
  while (end < candidates.length && sum + candidates[end]!.tokenCount <= size) sum += candidates[end++]!.tokenCount;
  return end;
}

/**
 * The questions a text costs if every answer keeps its whole window: the fewest it can cost, since
 * an earlier split only moves the next window back. A window of one candidate needs no question.
 */
export function leastQuestions(candidates: readonly Span[], size: number): number {
  let n = 0;
  for (let i = 0; i < candidates.length;) {
    const end = windowEnd(candidates, i, size);
    if (end - i > 1) n++;
    i = end;
  }
  return n;
}
