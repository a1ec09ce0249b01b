import type { Static } from 'typebox';
import { configError, loadTokenizer, tokensIn, type ChunkerImpl, type Span } from '../../kernel/index.js';
import type { TokenConfig } from './index.js';

/** The overlap in tokens: a fraction of chunk_size is floored; it must leave a positive step. */
export function overlapTokens(chunkSize: number, overlap: number): number {
  let tokens: number;
  if (overlap > 0 && overlap < 1) tokens = Math.floor(overlap * chunkSize);
  else if (Number.isInteger(overlap)) tokens = overlap;
  else throw configError(`chunk_overlap must be a whole number of tokens or a fraction in (0, 1); got ${overlap}.`);
  if (tokens >= chunkSize) throw configError(`chunk_overlap (${tokens} tokens) must be smaller than chunk_size (${chunkSize}).`);
  return tokens;
}

/**
 * Windows of `size` tokens stepping by `size - overlap`, cut from one encoding of the text. Token
 * ends are snapped up to code-point boundaries, so tokens that share an end belong to one
 * character: a window never ends inside a character (it ends before it, or, when that character
 * alone is wider than the window, after it), so no chunk exceeds chunk_size unless one character does.
 */
export function windows(ends: Uint32Array, size: number, overlap: number): Span[] {
  const n = ends.length;
  const insideChar = (k: number) => k + 1 < n && ends[k + 1] === ends[k];
  const spans: Span[] = [];
  let lastEnd = 0;
  for (let first = 0; first < n; ) {
    let last = Math.min(first + size, n) - 1;
    while (last >= first && insideChar(last)) last--;
    if (last < first) for (last = first; insideChar(last); ) last++;
    const start = first === 0 ? 0 : ends[first - 1]!;
    const end = ends[last]!;
    if (end > lastEnd && end > start) {
      spans.push({ start, end, tokenCount: tokensIn(ends, start, end) });
      lastEnd = end;
    }
    if (last === n - 1) break;
    first = Math.min(first + size - overlap, last + 1);
  }
  return spans;
}

export async function create(config: Static<typeof TokenConfig>): Promise<ChunkerImpl> {
  const overlap = overlapTokens(config.chunk_size, config.chunk_overlap);
  const tokenizer = await loadTokenizer(config.tokenizer);
  return { chunk: (text) => windows(tokenizer.ends(text), config.chunk_size, overlap) };
}
