const SURROGATE = /[\ud800-\udfff]/;
const PAIR = /[\ud800-\udbff][\udc00-\udfff]/g;
const NONE = new Uint32Array(0);

let lastText: string | undefined;
let lastPairs: Uint32Array = NONE;

/**
 * The UTF-16 index of the low half of every surrogate pair in `text`, ascending: the positions
 * where code points and UTF-16 units part. Text without surrogates (V8 answers that test at once
 * for one-byte strings) has none. The result for the last text asked about is kept (and so that
 * text, until another is asked about), because a request asks twice for the same text (the
 * character tokenizer counting spans, then the kernel converting offsets) and the scan is the
 * costly part of both. Equal texts give equal answers, so a stale hit cannot be wrong.
 */
export function surrogatePairs(text: string): Uint32Array {
  if (text === lastText) return lastPairs;
  let pairs = NONE;
  if (SURROGATE.test(text)) {
    const found: number[] = [];
    PAIR.lastIndex = 0;
    for (let m = PAIR.exec(text); m; m = PAIR.exec(text)) found.push(m.index + 1);
    pairs = Uint32Array.from(found);
  }
  lastText = text;
  lastPairs = pairs;
  return pairs;
}
