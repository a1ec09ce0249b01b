/**
 * The recursive chunker: cut at a recipe's levels (paragraphs, sentences, pauses, words), then by
 * tokens, until every chunk fits chunk_size. Shared code: the recursive plugin serves it, and the
 * late and slumber chunkers cut their candidates with it (their configs reuse its fields).
 */
import Type, { type Static } from '#typebox';
import { ChunkSizeField, TokenizerField } from '../fields.js';
import type { ChunkerImpl } from '../plugin.js';
import type { Span } from '../chunk.js';
import { loadTokenizer, spanCounter, type Tokenizer } from '../tokenizers/index.js';
import { tokenWindows } from '../tokenizers/windows.js';
import { groupEnds } from './groups.js';
import { loadRecipe, type Recipe } from './recipes.js';
import { sentenceSplitter, type MergeRule, type Splitter } from './sentences.js';

export const RecursiveConfig = Type.Object({
  tokenizer: TokenizerField(),
  chunk_size: ChunkSizeField(),
  recipe: Type.String({
    default: 'default',
    minLength: 1,
    maxLength: 128,
    description: 'Rules to cut with: default, markdown, python, js, ts, go, rust, java, c, cpp, html, latex, or a recipe added with --recipes-dir.',
  }),
  lang: Type.String({
    default: 'en',
    minLength: 1,
    maxLength: 64,
    description: 'Language of the text, for the sentence rules of text recipes (en, de, fr, es, …, zh, ja, ko, hi, ar); code recipes accept any.',
  }),
  min_characters_per_chunk: Type.Integer({
    default: 24,
    minimum: 1,
    description:
      "Minimum piece length in UTF-8 bytes at every level (Chonkie's rule): a piece joins the one before it when either is shorter (a short first piece joins the next); 1: never.",
  }),
  min_characters_rule: Type.Union([Type.Literal('chonkie'), Type.Literal('forward')], {
    default: 'chonkie',
    description:
      "How short pieces merge. 'chonkie': as Chonkie (a run of short words can become one piece that is then cut inside a word by tokens). 'forward': short pieces gather into runs of at least the minimum, a short last run joins the piece before, so chunks end at word boundaries.",
  }),
  keep_blocks: Type.Boolean({
    default: false,
    description:
      "On a processed document (a process step, or a file by reference): keep each table and fenced code block that fits chunk_size whole, in a chunk of its own; the text between blocks is cut as usual. Off: Chonkie's chunks, unchanged. A text without structure is not affected.",
  }),
});

type Config = Static<typeof RecursiveConfig>;

/** A recursive chunker for a validated config (keep_blocks may be left out: off). */
export async function createRecursive(config: Omit<Config, 'keep_blocks'> & { keep_blocks?: boolean }): Promise<ChunkerImpl> {
  const recipe = loadRecipe(config.recipe, config.lang);
  const tokenizer = await loadTokenizer(config.tokenizer);
  return recursiveChunker(recipe, tokenizer, config.chunk_size, config.min_characters_per_chunk, config.min_characters_rule, config.keep_blocks ?? false);
}

/** The document cut into runs: each table or code block (overlaps merged), and the text between them. */
function segments(length: number, blocks: readonly { start: number; end: number }[]): { start: number; end: number; block: boolean }[] {
  const sorted = [...blocks].filter((b) => b.end > b.start).sort((a, b) => a.start - b.start);
  const out: { start: number; end: number; block: boolean }[] = [];
  let at = 0;
  for (const b of sorted) {
    if (b.end <= at) continue;
    const start = Math.max(at, b.start);
    if (start > at) out.push({ start: at, end: start, block: false });
    out.push({ start, end: b.end, block: true });
    at = b.end;
  }
  if (at < length) out.push({ start: at, end: length, block: false });
  return out;
}

/**
 * Everything per config is built here once (splitters compiled per level); chunk() keeps its state
 * in locals, so one instance serves concurrent requests.
 */
export function recursiveChunker(
  recipe: Recipe,
  tokenizer: Tokenizer,
  size: number,
  minCharacters: number,
  mergeRule: MergeRule = 'chonkie',
  keepBlocks = false,
): ChunkerImpl {
  const levels: (Splitter | null)[] = recipe.rules.map(
    (r) => r && sentenceSplitter({ delim: r.delimiters, includeDelim: r.includeDelim, minCharacters, mergeRule }),
  );
  return {
    chunk(text, context) {
      // Pieces are counted by offset: from one encoding of the whole text, or with no encoding at
      // all when the tokenizer can (character and byte on ASCII text); see spanCounter.
      const counter = spanCounter(tokenizer, text);
      const count = counter.count;
      const out: Span[] = [];
      const cut = (start: number, end: number, level: number): void => {
        const split = levels[level];
        if (!split) {
          // An additive tokenizer encodes the piece alone (the same tokens); others cut the whole
          // text's encoding, so the counts of all chunks add up to the count of the text.
          const windows = tokenizer.additive
            ? tokenWindows(tokenizer.ends(text.slice(start, end)), size, 0).map((w) => ({
                start: start + w.start,
                end: start + w.end,
                tokenCount: w.tokenCount,
              }))
            : tokenWindows(counter.ends(), size, 0, start, end);
          for (const w of windows) out.push({ start: w.start, end: w.end, tokenCount: tokenizer.cheapCount ? count(w.start, w.end) : w.tokenCount });
          return;
        }
        const pieces = split(text, start, end);
        const counts = pieces.map((p) => count(p.start, p.end));
        // Chonkie's merge_splits: consecutive pieces grouped greedily while their counts sum to
        // ≤ size; a group still too big (a single piece) is cut at the next level.
        let i = 0;
        for (const j of groupEnds(counts, size)) {
          const s = pieces[i]!.start;
          const e = pieces[j - 1]!.end;
          if (j - i === 1 && counts[i]! > size) cut(s, e, level + 1);
          else out.push({ start: s, end: e, tokenCount: j - i === 1 ? counts[i]! : count(s, e) });
          i = j;
        }
      };
      const structure = keepBlocks ? context?.structure : undefined;
      if (structure && (structure.tables.length || structure.code.length)) {
        // Each block that fits is one chunk; text between blocks (and a block too large) is cut as usual.
        for (const seg of segments(text.length, [...structure.tables, ...structure.code])) {
          const n = count(seg.start, seg.end);
          if (n <= size) out.push({ start: seg.start, end: seg.end, tokenCount: n });
          else cut(seg.start, seg.end, 0);
        }
        return out;
      }
      const total = count(0, text.length);
      if (total <= size) return [{ start: 0, end: text.length, tokenCount: total }];
      cut(0, text.length, 0);
      return out;
    },
  };
}
