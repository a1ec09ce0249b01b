import type { Tokenizer } from './tokenizer.js';

const WORD = /\S+/g;

/** One token per run of non-whitespace; whitespace belongs to the word before it (leading to the first). */
export const word: Tokenizer = {
  name: 'word',
  cheapCount: true,
  count(text) {
    let n = 0;
    WORD.lastIndex = 0;
    while (WORD.exec(text)) n++;
    return n;
  },
  ends(text) {
    const starts: number[] = [];
    WORD.lastIndex = 0;
    for (let m = WORD.exec(text); m; m = WORD.exec(text)) starts.push(m.index);
    const out = new Uint32Array(starts.length);
    for (let k = 0; k < starts.length; k++) out[k] = k + 1 < starts.length ? starts[k + 1]! : text.length;
    return out;
  },
};
