import type { Static } from '#typebox';
import {
  checkOverlapStep,
  configError,
  loadTokenizer,
  sentenceSplitter,
  spanCounter,
  type ChunkerImpl,
  type SentenceSpan,
  type Span,
} from '../../kernel/index.js';
import type { SentenceConfig } from './index.js';

type Config = Static<typeof SentenceConfig>;

export async function create(config: Config): Promise<ChunkerImpl> {
  if (config.chunk_overlap >= config.chunk_size) {
    throw configError(`chunk_overlap (${config.chunk_overlap}) must be smaller than chunk_size (${config.chunk_size}).`);
  }
  checkOverlapStep(config.chunk_size, config.chunk_overlap);
  const tokenizer = await loadTokenizer(config.tokenizer);
  const split = sentenceSplitter({ delim: config.delim, includeDelim: config.include_delim, minCharacters: config.min_characters_per_sentence });
  // Counting by offset (one encoding of the whole text, or none for character/byte on ASCII) when
  // that is exact or an estimate is allowed; otherwise each sentence and chunk is encoded on its
  // own, as the reference counts them.
  const byOffset = tokenizer.additive === true || config.approximate;
  return {
    chunk(text) {
      const count = byOffset ? spanCounter(tokenizer, text).count : (start: number, end: number) => tokenizer.count(text.slice(start, end));
      const sentences = split(text);
      return pack(
        sentences,
        sentences.map((s) => count(s.start, s.end)),
        config,
        count,
      );
    },
  };
}

/**
 * Greedy packing: from each start take the most sentences whose counts sum to ≤ chunk_size (at
 * least one, then at least min_sentences_per_chunk), and start the next chunk after walking back
 * whole sentences while their tokens (+1 each, the reference's separator allowance) fit the overlap.
 */
export function pack(sentences: SentenceSpan[], counts: number[], config: Config, count: (start: number, end: number) => number): Span[] {
  const n = sentences.length;
  const sums = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) sums[i + 1] = sums[i]! + counts[i]!;
  const spans: Span[] = [];
  for (let pos = 0; pos < n;) {
    let next = lastWithin(sums, pos, sums[pos]! + config.chunk_size);
    next = Math.max(next, pos + 1);
    if (next - pos < config.min_sentences_per_chunk) next = Math.min(pos + config.min_sentences_per_chunk, n);
    const start = sentences[pos]!.start;
    const end = sentences[next - 1]!.end;
    spans.push({ start, end, tokenCount: count(start, end) });
    if (config.chunk_overlap > 0 && next < n) {
      let tokens = 0;
      let k = next - 1;
      while (k > pos && tokens + counts[k]! + 1 <= config.chunk_overlap) tokens += counts[k--]! + 1;
      pos = k + 1;
    } else {
      pos = next;
    }
  }
  return spans;
}

/** The largest j in [pos, n] with sums[j] ≤ limit (sums is non-decreasing). */
function lastWithin(sums: Float64Array, pos: number, limit: number): number {
  let lo = pos;
  let hi = sums.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (sums[mid]! <= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
