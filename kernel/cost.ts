/**
 * What a request costs, for the pool to decide where it runs (kernel/pool.ts). A plugin's manifest
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

/** Delimiter search checks every delimiter at every match: a long list multiplies the work. */
export const delimCost = (delim: string | readonly string[]): number => (typeof delim === 'string' ? 1 : Math.max(1, delim.length / 8));
