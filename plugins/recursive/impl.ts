import type { Static } from 'typebox';
import { loadTokenizer, spanTokens, tokenWindows, type ChunkerImpl, type Span, type Tokenizer } from '../../kernel/index.js';
import { sentenceSplitter, type Splitter } from '../sentence/split.js';
import type { RecursiveConfig } from './index.js';
import { loadRecipe, type Recipe } from './recipes.js';

type Config = Static<typeof RecursiveConfig>;

export async function create(config: Config): Promise<ChunkerImpl> {
  const recipe = loadRecipe(config.recipe, config.lang);
  const tokenizer = await loadTokenizer(config.tokenizer);
  return recursiveChunker(recipe, tokenizer, config.chunk_size, config.min_characters_per_chunk);
}

/**
 * Everything per config is built here once (splitters compiled per level); chunk() keeps its state
 * in locals, so one instance serves concurrent requests.
 */
export function recursiveChunker(recipe: Recipe, tokenizer: Tokenizer, size: number, minCharacters: number): ChunkerImpl {
  const levels: (Splitter | null)[] = recipe.rules.map((r) => r && sentenceSplitter({ delim: r.delimiters, includeDelim: r.includeDelim, minCharacters }));
  return {
    chunk(text) {
      // One encoding of the whole text; every piece is then counted by offset (see spanTokens).
      const ends = tokenizer.ends(text);
      const count = (start: number, end: number) => spanTokens(tokenizer, text, ends, start, end);
      const out: Span[] = [];
      const cut = (start: number, end: number, level: number): void => {
        const split = levels[level];
        if (!split) {
          for (const w of tokenWindows(ends, size, 0, start, end)) out.push({ start: w.start, end: w.end, tokenCount: count(w.start, w.end) });
          return;
        }
        const pieces = split(text, start, end);
        const counts = pieces.map((p) => count(p.start, p.end));
        // Greedy: join consecutive pieces while their counts sum to ≤ size; a group that is still
        // too big (a single piece) is cut at the next level.
        for (let i = 0; i < pieces.length; ) {
          let sum = counts[i]!;
          let j = i + 1;
          while (j < pieces.length && sum + counts[j]! <= size) sum += counts[j++]!;
          const s = pieces[i]!.start;
          const e = pieces[j - 1]!.end;
          if (sum > size) cut(s, e, level + 1);
          else out.push({ start: s, end: e, tokenCount: j - i === 1 ? sum : count(s, e) });
          i = j;
        }
      };
      const total = count(0, text.length);
      if (total <= size) return [{ start: 0, end: text.length, tokenCount: total }];
      cut(0, text.length, 0);
      return out;
    },
  };
}
