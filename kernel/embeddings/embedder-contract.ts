/** What every embedding provider gives (embedder.ts loads one by name; providers/ serve them). */
import type { Tokenizer } from '../tokenizers/index.js';

/** One embedding model, whatever serves it: a static model, an ONNX encoder, or an API. */
export interface Embedder {
  /** The name it was loaded by. */
  readonly name: string;
  /** Length of every vector (an API model learns it from its first answer; 0 before). */
  readonly dimension: number;
  /** The model's own tokenizer, for counting tokens (chunk_size limits are in these tokens). */
  readonly tokenizer: Tokenizer;
  /** One vector per text, in order. Texts are embedded as given (no chunking, no truncation unless the model has a limit). */
  embed(texts: string[]): Promise<Float32Array[]>;
  /** Token-level vectors of one whole text, for late chunking (local models only; an API returns one vector per text). */
  tokenVectors?(text: string): Promise<TokenVectors>;
}

/**
 * The tokens of a text (no special tokens): token k covers the text from `ends[k-1]` (0 for the
 * first) to `ends[k]`, and has vector `vectors[k]`, or null when the model has none for it (a
 * static model's unknown word).
 */
export interface TokenVectors {
  ends: Uint32Array;
  vectors: (Float32Array | null)[];
}
