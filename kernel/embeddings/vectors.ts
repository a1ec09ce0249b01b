/** Vector helpers shared by the providers and by the chunkers that compare embeddings. */
import { fnv1a } from '../fnv.js';
import { words } from '../words.js';

/** Cosine similarity; 0 when either vector is all zeros (a text with no known token). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Scale to unit length in place (a zero vector stays zero). */
export function normalize(v: Float32Array): Float32Array {
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i]! * v[i]!;
  if (n > 0) {
    const k = 1 / Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i]! *= k;
  }
  return v;
}

/** Split a list into consecutive batches of at most `size` items. */
export function batches<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A vector as a plain array of numbers, each times `scale` and rounded to 8 decimals (a float32
 * carries about 7 significant digits; more only lengthens the JSON), in V8's unboxed layout of
 * doubles: ~0.86 KB for 100 numbers where `Array.from(v, f)` takes ~1.3 KB (measured), which counts
 * at 100,000 chunks.
 */
function roundedArray(v: ArrayLike<number>, scale = 1): number[] {
  const out = new Array<number>(v.length).fill(0.5);
  for (let i = 0; i < v.length; i++) out[i] = Math.round(v[i]! * scale * 1e8) / 1e8;
  return out;
}

/**
 * A chunk's vector as chunkd stores and answers it: the model's (`v`, times `scale`, rounded:
 * roundedArray), or, where the model knows no word of the text (`v` absent or all zeros), the
 * text's hashedDirection. One rule for every plugin that embeds chunks, so no stored vector is zero.
 */
export function chunkVector(v: ArrayLike<number> | undefined, text: string, dimension: number, scale = 1): number[] {
  return v && !isZero(v) ? roundedArray(v, scale) : hashedDirection(text, dimension);
}

/** Whether every number of a vector is zero (a text the model knows no token of). */
const isZero = (v: ArrayLike<number>): boolean => {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
};

/**
 * The vector of a text a model knows no word of, where its own would be all zeros: the mean of a
 * fixed pseudo-random direction per word (feature hashing, as fastText does for words it never
 * saw), unit length. The same words always give the same direction, so a query of those words
 * finds the chunks that hold them, and no stored vector is zero (a zero vector has no direction: a
 * store refuses it). Words are runs of letters and digits, lowercased; a text without any is one word.
 */
export function hashedDirection(text: string, dimension: number): number[] {
  const found = words(text);
  const all = found.length ? found : [text.trim()];
  const sum = new Float64Array(dimension);
  for (const word of all) {
    // FNV-1a of the word's UTF-16 units seeds an xorshift32 stream of numbers in [-1, 1).
    let x = fnv1a(word) || 1;
    for (let d = 0; d < dimension; d++) {
      x ^= x << 13;
      x >>>= 0;
      x ^= x >>> 17;
      x ^= x << 5;
      x >>>= 0;
      sum[d]! += x / 0x80000000 - 1;
    }
  }
  return roundedArray(sum, 1 / (Math.hypot(...sum) || 1));
}
