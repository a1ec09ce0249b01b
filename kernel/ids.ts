import { createXXHash128, type IHasher } from 'hash-wasm';

/**
 * Deterministic chunk ids, derived from content and position: `chnk_` + 32 hex digits (128 bits).
 *
 * A chunker's chunks: the XXH3-128 hash of the whole input text is computed once per document
 * (`sourceKey`), and each chunk's id mixes that key with the chunk's UTF-16 span (start, end):
 * four MurmurHash3-style mixes of (start, end), each seeded with one word of the key and whitened
 * with the next. So re-chunking the same text gives the same ids, the same chunk text at another
 * position or in another document gets another id, and the cost is one hash pass over the text
 * plus O(1) per chunk. The span is in UTF-16 units whatever `offset_unit` the client asked for.
 *
 * Why XXH3-128 over the text's UTF-16 code units: ids need no resistance to a deliberate collision
 * (they name chunks, they guard nothing), only negligible accidental ones (128 bits: ~10^-21 at
 * 10^9 chunks); the hash (WASM, hash-wasm) runs ~3× faster than the SHA-256 it replaces, and the
 * code units are written into a reused buffer with a native copy, where SHA-256 of a string first
 * encoded it to UTF-8 (which also folded every lone surrogate into U+FFFD: two texts that differ
 * there got one key). bench/ (the ids suite) compares the two.
 *
 * Chunks a refinery receives without an id (built by a client) have no whole input: their key is
 * the hash of the chunk's own text, mixed with its start_index and end_index as sent. Such a chunk
 * therefore gets a different id than the chunker gave the same chunk; both are deterministic.
 */

/** The per-document key: a 128-bit hash of the source text as four 32-bit words. */
export type SourceKey = Int32Array;

// One hasher per thread (a module instance per worker), used synchronously from init to digest.
// Its WASM module compiles asynchronously: callers await `idsReady` once (chunkMany and refineMany
// do) rather than this module awaiting at its top level, which a worker thread under the
// TypeScript loader cannot import.
let hasher: IHasher | undefined;
export const idsReady: Promise<void> = createXXHash128().then((h) => void (hasher = h));

/** Code units hashed per update: the buffer stays small (cache-sized) whatever the text's length. */
const PIECE = 1 << 15;
const units = Buffer.allocUnsafeSlow(2 * PIECE);

export function sourceKey(text: string): SourceKey {
  if (hasher === undefined) throw new Error('Chunk ids are not ready: await idsReady (kernel/ids.ts) before making ids.');
  hasher.init();
  for (let at = 0; at < text.length; at += PIECE) {
    const written = units.write(text.slice(at, at + PIECE), 'utf16le'); // little-endian on every platform: the same key everywhere
    hasher.update(units.subarray(0, written));
  }
  const digest = Buffer.from(hasher.digest('binary'));
  // Read as little-endian words explicitly, so the key (and every id) is the same on any platform.
  return Int32Array.of(digest.readInt32LE(0), digest.readInt32LE(4), digest.readInt32LE(8), digest.readInt32LE(12));
}

/** The id of the chunk text[start, end) of the source whose key is `key`. */
export function chunkId(key: SourceKey, start: number, end: number): string {
  const a = mix(key[0]!, start, end) ^ key[1]!;
  const b = mix(key[1]!, start, end) ^ key[2]!;
  const c = mix(key[2]!, start, end) ^ key[3]!;
  const d = mix(key[3]!, start, end) ^ key[0]!;
  return idOf(a, b, c, d);
}

/** The id of a chunk known only by its own text and offsets (a refinery's input without an id). */
export function standaloneChunkId(text: string, start: number, end: number): string {
  return chunkId(sourceKey(text), start, end);
}

/**
 * MurmurHash3 (x86_32) of the two 32-bit words (start, end) with `seed`: for a fixed seed it is a
 * bijection in each word, and its finaliser avalanches every input bit into every output bit.
 */
function mix(seed: number, start: number, end: number): number {
  let h = seed;
  h = round(h, start);
  h = round(h, end);
  h ^= 8;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

function round(h: number, word: number): number {
  let k = Math.imul(word, 0xcc9e2d51);
  k = (k << 15) | (k >>> 17);
  k = Math.imul(k, 0x1b873593);
  h ^= k;
  h = (h << 13) | (h >>> 19);
  return (Math.imul(h, 5) + 0xe6546b64) | 0;
}

/**
 * The id as one flat string, built by one String.fromCharCode call over reused character codes,
 * where concatenating 16 two-digit pieces made a tree of strings per id that the garbage
 * collector and JSON.stringify then had to walk.
 */
const PREFIX = 'chnk_';
const DIGITS = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));
const codes = Array.from(PREFIX + '0'.repeat(32), (c) => c.charCodeAt(0));

function idOf(a: number, b: number, c: number, d: number): string {
  put(a, PREFIX.length);
  put(b, PREFIX.length + 8);
  put(c, PREFIX.length + 16);
  put(d, PREFIX.length + 24);
  return String.fromCharCode.apply(null, codes);
}

function put(word: number, at: number): void {
  for (let i = 7; i >= 0; i--) {
    codes[at + i] = DIGITS[word & 15]!;
    word >>>= 4;
  }
}
