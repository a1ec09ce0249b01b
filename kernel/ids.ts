import { createXXHash128, type IHasher } from '#hash-wasm';
import { forEachUtf16Piece } from './utf16-pieces.js';

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
/** Whether idsReady has settled: a caller that checks this first awaits it only until then. */
export const idsAreReady = (): boolean => hasher !== undefined;

export function sourceKey(text: string, alongside?: (bytes: Buffer, at: number) => void): SourceKey {
  if (hasher === undefined) throw new Error('Chunk ids are not ready: await idsReady (kernel/ids.ts) before making ids.');
  const h = hasher;
  h.init();
  // Little-endian on every platform: the same key everywhere. `alongside` reads each piece too (one pass for two readers).
  forEachUtf16Piece(text, alongside ? (bytes, at) => (h.update(bytes), alongside(bytes, at)) : (bytes) => h.update(bytes));
  const d = h.digest('binary');
  // Read as little-endian words byte by byte, so the key (and every id) is the same on any platform.
  // Not through d.buffer: asking a small typed array for its buffer moves it off the JavaScript
  // heap, an allocation that costs microseconds here (see kernel/tokenizers/character.ts).
  const word = (i: number) => d[i]! | (d[i + 1]! << 8) | (d[i + 2]! << 16) | (d[i + 3]! << 24);
  return Int32Array.of(word(0), word(4), word(8), word(12));
}

/** The id of the chunk text[start, end) of the source whose key is `key`. */
export function chunkId(key: SourceKey, start: number, end: number): string {
  return chunkIds(key, [{ start, end }])[0]!;
}

/**
 * The ids of many chunks of one source, in order (what chunkId gives each). Written as hex digits
 * into a reused buffer, a block at a time, each block read back as one Latin-1 string that every
 * id of the block is a slice of: about a third of the CPU of building each id as its own string,
 * mostly in the garbage collector (a slice is a small fixed-size object; a block stays below the
 * size the engine allocates apart, so no fresh memory is mapped per request).
 */
export function chunkIds(key: SourceKey, spans: readonly { start: number; end: number }[]): string[] {
  const out = new Array<string>(spans.length);
  const k0 = key[0]!,
    k1 = key[1]!,
    k2 = key[2]!,
    k3 = key[3]!;
  for (let first = 0; first < spans.length; first += BLOCK) {
    const last = Math.min(spans.length, first + BLOCK);
    for (let i = first, at = DIGITS_AT / 2; i < last; i++, at += SLOT / 2) {
      const { start, end } = spans[i]!;
      putHex(mix(k0, start, end) ^ k1, at);
      putHex(mix(k1, start, end) ^ k2, at + 4);
      putHex(mix(k2, start, end) ^ k3, at + 8);
      putHex(mix(k3, start, end) ^ k0, at + 12);
    }
    const ids = block.toString('latin1', 0, (last - first) * SLOT);
    for (let i = first, at = 1; i < last; i++, at += SLOT) out[i] = ids.slice(at, at + SLOT - 1);
  }
  return out;
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

const PREFIX = 'chnk_';
/**
 * An id's slot in the block: one byte of padding, the prefix, 32 hex digits. The padding puts the
 * digits at an even offset, so two digits (one byte of the id) are written per 16-bit store.
 */
const SLOT = 1 + PREFIX.length + 32;
const DIGITS_AT = 1 + PREFIX.length;
/** Ids per block: 1,024 × 38 bytes stays well below the engine's large-object size (128 KiB). */
const BLOCK = 1024;
/** Each slot already holds its padding and prefix; only the digits are written per id. */
const block = Buffer.allocUnsafeSlow(BLOCK * SLOT); // its own memory: a 16-bit view needs an even offset
block.write(` ${PREFIX}${'0'.repeat(32)}`.repeat(BLOCK), 'latin1');
const pairs = new Uint16Array(block.buffer, block.byteOffset, block.length / 2);
/** HEX16[b]: the two lower-case hex digits of byte b as one 16-bit store writes them (in memory order on this platform). */
const LITTLE_ENDIAN = new Uint8Array(Uint16Array.of(1).buffer)[0] === 1;
const HEX16 = Uint16Array.from({ length: 256 }, (_, b) => {
  const high = '0123456789abcdef'.charCodeAt(b >> 4);
  const low = '0123456789abcdef'.charCodeAt(b & 15);
  return LITTLE_ENDIAN ? high | (low << 8) : (high << 8) | low;
});

/** The 8 hex digits of `word` (as unsigned, most significant first) at pairs[at…at + 3]. */
function putHex(word: number, at: number): void {
  pairs[at] = HEX16[word >>> 24]!;
  pairs[at + 1] = HEX16[(word >>> 16) & 255]!;
  pairs[at + 2] = HEX16[(word >>> 8) & 255]!;
  pairs[at + 3] = HEX16[word & 255]!;
}
