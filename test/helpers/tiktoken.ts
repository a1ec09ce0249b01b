import { createRequire } from 'node:module';

/** tiktoken's own WASM encoder, the reference the tokenizers are checked against. */
export interface ReferenceEncoder {
  encode_ordinary(t: string): Uint32Array;
  decode_single_token_bytes(id: number): Uint8Array;
  decode(ids: Uint32Array): Uint8Array;
}

const { get_encoding } = createRequire(import.meta.url)('tiktoken') as { get_encoding(n: string): ReferenceEncoder };
const made = new Map<string, ReferenceEncoder>();

/** The encoder of an encoding, made once per test file: making one parses its ranks (0.3-1 s for o200k_base), and encoding keeps no state. */
export function referenceEncoder(name: string): ReferenceEncoder {
  let enc = made.get(name);
  if (!enc) made.set(name, (enc = get_encoding(name)));
  return enc;
}
