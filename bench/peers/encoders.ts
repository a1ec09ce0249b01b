/**
 * One tiktoken encoder (the WASM build chunkd uses) shaped for each peer's tokenizer interface, so
 * a peer and chunkd compared on a BPE tokenizer spend the same time encoding and the ratio measures
 * the chunking around it.
 */
import { createRequire } from 'node:module';

interface WasmEncoder {
  encode_ordinary(text: string): Uint32Array;
  decode(tokens: Uint32Array): Uint8Array;
  decode_single_token_bytes(token: number): Uint8Array;
}

const require = createRequire(import.meta.url);
const encoders = new Map<string, WasmEncoder>();
export function wasmEncoder(name: string): WasmEncoder {
  let enc = encoders.get(name);
  if (!enc) {
    const { get_encoding } = require('tiktoken') as { get_encoding(name: string): WasmEncoder };
    enc = get_encoding(name);
    encoders.set(name, enc);
  }
  return enc;
}

const utf8 = new TextDecoder();

/** The interface of @chonkiejs/core's Tokenizer (countTokens, encode, decode, decodeBatch). */
export function chonkieTokenizer(name: string) {
  const enc = wasmEncoder(name);
  const decode = (tokens: number[]) => utf8.decode(enc.decode(Uint32Array.from(tokens)));
  return {
    countTokens: (text: string) => enc.encode_ordinary(text).length,
    encode: (text: string) => Array.from(enc.encode_ordinary(text)),
    decode,
    decodeBatch: (batch: number[][]) => batch.map(decode),
  };
}

/** The interface LangChain's TokenTextSplitter calls on its `tokenizer` (js-tiktoken's Tiktoken). */
export function langchainTokenizer(name: string) {
  const enc = wasmEncoder(name);
  return {
    encode: (text: string) => Array.from(enc.encode_ordinary(text)),
    decode: (tokens: number[]) => utf8.decode(enc.decode(Uint32Array.from(tokens))),
  };
}

/** A token-counting length function, as LangChain users pass to RecursiveCharacterTextSplitter. */
export const tokenLength = (name: string) => {
  const enc = wasmEncoder(name);
  return (text: string) => enc.encode_ordinary(text).length;
};
