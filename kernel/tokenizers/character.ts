import { surrogatePairs } from '../surrogates.js';
import { tokensIn, type Tokenizer } from './tokenizer.js';

/**
 * Typed arrays of more than 64 bytes live outside the JavaScript heap, and making one costs ~2–6 µs
 * here (measured), more than the chunking of a small request: so the ends of a text with no
 * surrogate pair (1, 2, 3, …) are views of one shared array, made once, up to SHARED_MAX units.
 * Read only, as every tokenizer's `ends` is to its callers.
 */
const SHARED_MAX = 1 << 16;
let counting = new Uint32Array(0);
function sharedEnds(n: number): Uint32Array {
  if (counting.length < n) {
    counting = new Uint32Array(Math.min(SHARED_MAX, Math.max(n, 2 * counting.length, 1024)));
    for (let i = 0; i < counting.length; i++) counting[i] = i + 1;
  }
  return counting.subarray(0, n);
}

/** One token per Unicode code point. */
export const character: Tokenizer = {
  name: 'character',
  additive: true,
  count(text) {
    let n = text.length;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
        const p = text.charCodeAt(i - 1);
        if (p >= 0xd800 && p <= 0xdbff) n--;
      }
    }
    return n;
  },
  ends(text) {
    const n = this.count(text);
    if (n === text.length && n <= SHARED_MAX) return sharedEnds(n); // no surrogate pair
    const out = new Uint32Array(n);
    let k = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) i++;
      }
      out[k++] = i + 1;
    }
    return out;
  },
  spans(text) {
    // Without surrogates every UTF-16 unit is one code point, so spans are counted without
    // encoding anything. Otherwise a span holds its length minus the surrogate pairs inside it,
    // found by binary search in the kernel's pair scan (shared with the offset conversion).
    const at = surrogatePairs(text);
    if (at.length === 0) return (start, end) => end - start;
    return (start, end) => end - start - tokensIn(at, start, end);
  },
};
