import type { Static } from '#typebox';
import { countSpan, floorFraction, loadRecipe, loadTokenizer, type Chunk, type RefineryImpl } from '../../kernel/index.js';
import type { OverlapConfig } from './index.js';
import { recursiveCutter } from './recursive-cut.js';
import { tokenCut, type Cut, type Side } from './token-cut.js';

type Config = Static<typeof OverlapConfig>;

/** Cuts a context of at most `k` tokens (the recursive mode may take fewer) from one end of a neighbour's text. */
export type Cutter = (text: string, ends: Uint32Array, k: number, side: Side) => Cut;

/** Tokens of context taken from a neighbour: a fraction of its token_count (floored), or a count. */
export function contextTokens(contextSize: number, neighbourTokens: number): number {
  return contextSize < 1 ? floorFraction(contextSize, neighbourTokens) : contextSize;
}

const SIDES = {
  suffix: { before: false, after: true },
  prefix: { before: true, after: false },
  justified: { before: true, after: true },
} as const;

/** The recipe is loaded (and an unknown recipe or lang refused) only in recursive mode: token mode ignores both. */
function cutterFor(config: Config): Cutter {
  if (config.mode === 'recursive') return recursiveCutter(loadRecipe(config.recipe, config.lang).rules);
  return (text, ends, k, side) => tokenCut(ends, 0, text.length, k, side);
}

/**
 * Every chunk gets the end of the previous chunk before it and/or the start of the next one after
 * it, cut from the neighbours' text as received: contexts never cascade (a merged context is not
 * itself a source of context), so each context is a piece of its neighbour's own span.
 */
export async function create(config: Config): Promise<RefineryImpl> {
  const tokenizer = await loadTokenizer(config.tokenizer);
  const cut = cutterFor(config);
  const { before, after } = SIDES[config.method];
  return {
    refine(chunks: Chunk[]): Chunk[] {
      const encodings: Uint32Array[] = []; // each chunk is encoded at most once, even when both neighbours cut it
      const context = (i: number, side: Side) => {
        const { text, token_count } = chunks[i]!;
        const ends = (encodings[i] ??= tokenizer.ends(text));
        const c = cut(text, ends, contextTokens(config.context_size, token_count), side);
        // The context's own token count: by offset where that is exact, else the context re-encoded.
        return { text: text.slice(c.start, c.end), tokens: countSpan(tokenizer, text, ends, c.start, c.end) };
      };
      return chunks.map((chunk, i) => {
        const fromPrev = before && i > 0 ? context(i - 1, 'tail') : undefined;
        const fromNext = after && i + 1 < chunks.length ? context(i + 1, 'head') : undefined;
        if (!fromPrev && !fromNext) return { ...chunk };
        const added = (fromPrev?.text ?? '') + (fromNext?.text ?? '');
        if (!config.merge) return { ...chunk, context: added };
        return {
          ...chunk,
          text: (fromPrev?.text ?? '') + chunk.text + (fromNext?.text ?? ''),
          token_count: chunk.token_count + (fromPrev?.tokens ?? 0) + (fromNext?.tokens ?? 0),
          context: added,
        };
      });
    },
  };
}
