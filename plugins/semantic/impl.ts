import type { Static } from '#typebox';
import { configError, countSpan, loadEmbedder, sentenceSplitter, tokensIn, type ChunkerImpl, type Embedder, type Span } from '../../kernel/index.js';
import { autoThreshold } from './auto-threshold.js';
import { capSpan, packRanges, refit, type Piece } from './cap.js';
import type { SemanticConfig } from './index.js';
import { savgolProblem } from './savgol.js';
import { cosineOf, groupVector, windowSimilarities } from './similarity.js';
import { skipMerge } from './skip-merge.js';
import { rangesBetween, splitPoints, type SplitOptions } from './split-points.js';

type Config = Static<typeof SemanticConfig>;

/**
 * Sentences → (oversize ones cut by tokens) → one embedding each → window similarities →
 * Savitzky–Golay minima below the threshold percentile → groups → skip_window merging → groups
 * over chunk_size packed greedily by sentences. Every step works on spans of the input.
 */
export async function create(config: Config): Promise<ChunkerImpl> {
  const problem = savgolProblem({ window: config.filter_window, polyorder: config.filter_polyorder });
  if (problem) throw configError(problem);
  return semanticChunker(config, await loadEmbedder(config.embedding_model));
}

/** The chunker over a given embedder (tests pass one that records what it is asked to embed). */
export function semanticChunker(config: Config, embedder: Embedder): ChunkerImpl {
  const tokenizer = embedder.tokenizer;
  const split = sentenceSplitter({ delim: config.delim, includeDelim: config.include_delim, minCharacters: config.min_characters_per_sentence });
  const size = config.chunk_size;
  const opts: Omit<SplitOptions, 'threshold'> = {
    window: config.filter_window,
    polyorder: config.filter_polyorder,
    tolerance: config.filter_tolerance,
    minUnits: config.min_sentences_per_chunk,
    similarityWindow: config.similarity_window,
  };
  const auto = { minTokens: config.min_chunk_size, maxTokens: size, step: config.threshold_step };

  return {
    async chunk(text) {
      const ends = tokenizer.ends(text);
      // The hard cap starts here: a sentence over chunk_size is cut by tokens before it is embedded.
      const units: Piece[] = split(text).flatMap((s) => capSpan(ends, s.start, s.end, size));
      const counts = units.map((u) => tokensIn(ends, u.start, u.end));
      let groups: [number, number][] = [[0, units.length]];
      if (units.length > config.similarity_window) {
        const vectors = await embedder.embed(units.map((u) => text.slice(u.start, u.end)));
        const similarities = windowSimilarities(vectors, counts, config.similarity_window);
        const threshold = config.threshold === 'auto' ? autoThreshold(similarities, units.length, counts, opts, auto) : config.threshold;
        groups = rangesBetween(splitPoints(similarities, units.length, { ...opts, threshold }), units.length);
        if (config.skip_window > 0) {
          const groupVectors = groups.map(([a, b]) => groupVector(vectors, counts, a, b));
          groups = skipMerge(groups, (a, b) => cosineOf(groupVectors[a]!, groupVectors[b]!), threshold, config.skip_window);
        }
      }
      const count = (a: number, b: number) => countSpan(tokenizer, text, ends, units[a]!.start, units[b - 1]!.end);
      return groups
        .flatMap(([a, b]) => packRanges(counts, a, b, size))
        .flatMap((range) => refit(range, count, size))
        .map(([a, b, tokens]): Span => ({ start: units[a]!.start, end: units[b - 1]!.end, tokenCount: tokens }));
    },
  };
}
