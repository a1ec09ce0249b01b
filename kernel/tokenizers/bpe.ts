import { createRequire } from 'node:module';
import { bytePairEnds } from './bpe-merge.js';
import { ranksOf } from './bpe-ranks.js';
import { PieceCache, type Encoder } from './piece-cache.js';
import { patStrOf, piecePattern } from './pieces.js';
import type { Tokenizer } from './tokenizer.js';
import { driftPattern } from './unicode-drift.js';

export const TIKTOKEN_ENCODINGS = ['gpt2', 'r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base'] as const;
export type TiktokenEncoding = (typeof TIKTOKEN_ENCODINGS)[number];

interface Tiktoken extends Encoder {
  decode_single_token_bytes(token: number): Uint8Array;
}

// tiktoken is CommonJS with a synchronous WASM start; load it only when a BPE tokenizer is asked for.
const require = createRequire(import.meta.url);
const encoders = new Map<string, Tiktoken>();

/** An encoding's WASM encoder, made once (making one parses its ranks: 0.3-1 s for o200k_base); encoding keeps no state in it. */
function encoder(name: TiktokenEncoding): Tiktoken {
  let enc = encoders.get(name);
  if (!enc) encoders.set(name, (enc = (require('tiktoken') as { get_encoding(name: string): Tiktoken }).get_encoding(name)));
  return enc;
}

/**
 * A tiktoken encoding (ranks bundled in the package: offline). Special tokens are plain text.
 * Tokens come from the WASM encoder, through a cache of pieces (piece-cache.ts): the same tokens,
 * without re-running BPE on words already seen. Long pieces (a run of letters or punctuation with
 * no break) are merged in JavaScript from the same ranks in O(n log n) (bpe-merge.ts): the
 * encoder's merge is quadratic in a piece's length.
 */
export function tiktoken(name: TiktokenEncoding): Tokenizer {
  const enc = encoder(name);
  const byteLength = new Uint8Array(300_000); // per token id, filled lazily; 0 = not yet known
  const lengthOf = (id: number): number => {
    let n = byteLength[id]!;
    if (n === 0) {
      n = enc.decode_single_token_bytes(id).length;
      byteLength[id] = n;
    }
    return n;
  };
  const long = (piece: string) => bytePairEnds(Buffer.from(piece, 'utf8').toString('latin1'), ranksOf(name));
  const pieces = new PieceCache(enc, piecePattern(patStrOf(name)), lengthOf, driftPattern(), long, name);
  return { name, count: (text) => pieces.count(text), ends: (text) => pieces.ends(text) };
}
