import { configError } from './errors.js';

/**
 * What a request costs, for the pool to decide where it runs (kernel/engine/placement/pool.ts). A plugin's manifest
 * may declare `cost(config)`: its work per character of input, relative to the cheapest chunkers
 * (the token chunker counting characters: 1). The pool runs work on the event loop only while
 * characters × cost stays under INLINE_MAX_CHARS; anything costlier goes to a worker, where the
 * request deadline can stop it (nothing can stop work on the event loop).
 */

/** Cost of counting with a tokenizer: the built-in counters are cheap, BPE and Hugging Face tokenizers are not. */
export function tokenizerCost(tokenizer: unknown): number {
  return tokenizer === 'character' || tokenizer === 'word' || tokenizer === 'byte' ? 1 : BPE_COST;
}

/**
 * BPE costs ~1–2 µs a character on prose (the cheap counters ~0.05–0.5) and more on long pieces
 * without spaces; from a few KB up it runs in a worker.
 */
export const BPE_COST = 16;
/** Embedding every sentence or chunk (a model, or a remote API): a few KB already take tens of ms. */
export const EMBEDDING_COST = 64;
/** Parsing source code (tree-sitter, WebAssembly) before any counting. */
export const PARSER_COST = 16;

/** A chef that scans its text for structure (markdown: ~3 s on 16 MiB): from ~16 K characters up it runs off the event loop. */
export const STRUCTURE_COST = 4;

/** Delimiter search checks every delimiter at every match: a long list multiplies the work. */
export const delimCost = (delim: string | readonly string[]): number => (typeof delim === 'string' ? 1 : Math.max(1, delim.length / 8));

/**
 * Most chunks one token may appear in. Windows of `size` tokens stepping by `size - overlap`
 * repeat each token size/step times, so the answer grows with that ratio, not only with the text
 * (chunk_size 5000, chunk_overlap 4999 turns 60 KB into gigabytes).
 */
export const MAX_TOKEN_REPEATS = 64;

/** Refuse (400) an overlap that would repeat each token in more than MAX_TOKEN_REPEATS chunks. */
export function checkOverlapStep(chunkSize: number, overlapTokens: number): void {
  if (chunkSize > MAX_TOKEN_REPEATS * (chunkSize - overlapTokens)) {
    const most = chunkSize - Math.ceil(chunkSize / MAX_TOKEN_REPEATS);
    throw configError(
      `chunk_overlap (${overlapTokens} tokens) would repeat each token in up to ${Math.floor(chunkSize / (chunkSize - overlapTokens))} chunks of ${chunkSize}; the most is ${MAX_TOKEN_REPEATS}: lower chunk_overlap to at most ${most}.`,
    );
  }
}
