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

export async function create(config: Static<typeof TokenConfig>): Promise<ChunkerImpl> {
  const overlap = overlapTokens(config.chunk_size, config.chunk_overlap);
  const tokenizer = await loadTokenizer(config.tokenizer);
  const size = config.chunk_size;
  const step = size - overlap;
  return {
    chunk(text) {
      // Encode once; every window is a slice of the token end offsets.
      const ends = tokenizer.ends(text);
      const spans: Span[] = [];
      let lastEnd = 0;
      for (let first = 0; first < ends.length; first += step) {
        const last = Math.min(first + size, ends.length);
        const start = first === 0 ? 0 : ends[first - 1]!;
        const end = ends[last - 1]!;
        // A window inside one multi-token character is empty once snapped: its tokens went to the window before.
        if (end > start && end > lastEnd) {
          spans.push({ start, end, tokenCount: tokensIn(ends, start, end) });
          lastEnd = end;
        }
        if (last === ends.length) break;
      }
      return spans;
    },
  };
}
