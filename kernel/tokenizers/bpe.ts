import { createRequire } from 'node:module';
import type { Tokenizer } from './tokenizer.js';
import { byteEndsToUtf16 } from './utf8.js';

export const TIKTOKEN_ENCODINGS = ['gpt2', 'r50k_base', 'p50k_base', 'cl100k_base', 'o200k_base'] as const;
export type TiktokenEncoding = (typeof TIKTOKEN_ENCODINGS)[number];

interface Encoder {
  encode_ordinary(text: string): Uint32Array;
  decode_single_token_bytes(token: number): Uint8Array;
}

// tiktoken is CommonJS with a synchronous WASM start; load it only when a BPE tokenizer is asked for.
const require = createRequire(import.meta.url);

/** A tiktoken encoding (ranks bundled in the package: offline). Special tokens are plain text. */
export function tiktoken(name: TiktokenEncoding): Tokenizer {
  const { get_encoding } = require('tiktoken') as { get_encoding(name: string): Encoder };
  const enc = get_encoding(name);
  const byteLength = new Uint8Array(300_000); // per token id, filled lazily; 0 = not yet known
  const lengthOf = (id: number): number => {
    let n = byteLength[id]!;
    if (n === 0) {
      n = enc.decode_single_token_bytes(id).length;
      byteLength[id] = n;
    }
    return n;
  };
  return {
    name,
    count: (text) => enc.encode_ordinary(text).length,
    ends(text) {
      const ids = enc.encode_ordinary(text);
      const byteEnds = new Uint32Array(ids.length);
      let b = 0;
      for (let k = 0; k < ids.length; k++) byteEnds[k] = b += lengthOf(ids[k]!);
      return byteEndsToUtf16(text, byteEnds);
    },
  };
}
