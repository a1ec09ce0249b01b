import type { Static } from '#typebox';
import { checkOverlapStep, configError, floorFraction, loadTokenizer, tokenWindows, type ChunkerImpl } from '../../kernel/index.js';
import type { TokenConfig } from './index.js';

/** The overlap in tokens: a fraction of chunk_size is floored; it must leave a positive step. */
export function overlapTokens(chunkSize: number, overlap: number): number {
  let tokens: number;
  if (overlap > 0 && overlap < 1) tokens = floorFraction(overlap, chunkSize);
  else if (Number.isInteger(overlap)) tokens = overlap;
  else throw configError(`chunk_overlap must be a whole number of tokens or a fraction in (0, 1); got ${overlap}.`);
  if (tokens >= chunkSize) throw configError(`chunk_overlap (${tokens} tokens) must be smaller than chunk_size (${chunkSize}).`);
  checkOverlapStep(chunkSize, tokens);
  return tokens;
}

export async function create(config: Static<typeof TokenConfig>): Promise<ChunkerImpl> {
  const overlap = overlapTokens(config.chunk_size, config.chunk_overlap);
  const tokenizer = await loadTokenizer(config.tokenizer);
  return { chunk: (text, context) => tokenWindows(tokenizer.ends(text), config.chunk_size, overlap, 0, undefined, context?.maxSpans) };
}
