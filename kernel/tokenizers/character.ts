import { tokensIn, type Tokenizer } from './tokenizer.js';

const SURROGATE = /[\ud800-\udfff]/;
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;

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
    const out = new Uint32Array(this.count(text));
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
    // Without surrogates every UTF-16 unit is one code point (V8 answers this test at once for
    // one-byte strings), so spans are counted without encoding anything. Otherwise a span holds
    // its length minus the surrogate pairs starting inside it, found by binary search.
    if (!SURROGATE.test(text)) return (start, end) => end - start;
    const pairs: number[] = [];
    PAIR.lastIndex = 0;
    for (let m = PAIR.exec(text); m; m = PAIR.exec(text)) pairs.push(m.index + 1); // +1: ends are exclusive
    const at = Uint32Array.from(pairs);
    return (start, end) => end - start - tokensIn(at, start, end);
  },
};
