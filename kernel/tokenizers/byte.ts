import { tokensIn, type Tokenizer } from './tokenizer.js';

const NON_ASCII = /[^\x00-\x7f]/;
import { byteEndsToUtf16 } from './utf8.js';

const encoder = new TextEncoder();

/** One token per UTF-8 byte. */
export const byte: Tokenizer = {
  name: 'byte',
  additive: true,
  count: (text) => Buffer.byteLength(text, 'utf8'),
  ends(text) {
    const n = encoder.encode(text).length;
    const byteEnds = new Uint32Array(n);
    for (let k = 0; k < n; k++) byteEnds[k] = k + 1;
    return byteEndsToUtf16(text, byteEnds);
  },
  spans(text) {
    if (!NON_ASCII.test(text)) return (start, end) => end - start; // ASCII: one byte per unit
    const ends = this.ends(text);
    return (start, end) => tokensIn(ends, start, end);
  },
};
