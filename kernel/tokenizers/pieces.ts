import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * tiktoken's pre-tokenizer as a JavaScript RegExp. An encoding first splits text into pieces with
 * its pattern (`pat_str`, a Rust regex) and runs BPE on each piece alone, so splitting with an
 * equivalent JavaScript regex and encoding the pieces one by one gives exactly the same tokens.
 * Two things differ between the dialects and are translated:
 * - `\s` is Unicode White_Space in Rust; JavaScript's `\s` adds U+FEFF and lacks U+0085;
 * - `(?i:…)` groups (the contractions `'s`, `'ll`…) do not exist in Node 20's RegExp: each letter
 *   becomes a class of its simple case folds (`s` also matches `ſ`, `k` the Kelvin sign).
 */
const WHITE_SPACE = '\\t-\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const FOLDS: Record<string, string> = { s: 'sSſ', k: 'kK\u212a' };

export function piecePattern(patStr: string): RegExp {
  let out = '';
  let inClass = false;
  for (let i = 0; i < patStr.length; i++) {
    const c = patStr[i]!;
    if (c === '\\') {
      const next = patStr[i + 1]!;
      i++;
      if (next === 's') out += inClass ? WHITE_SPACE : `[${WHITE_SPACE}]`;
      else if (next === 'S')
        out += `[^${WHITE_SPACE}]`; // never inside a class in tiktoken's patterns
      else if (next === 'p' || next === 'P') {
        const end = patStr.indexOf('}', i);
        out += patStr.slice(i - 1, end + 1);
        i = end;
      } else out += `\\${next}`;
    } else if (c === '[') {
      inClass = true;
      out += c;
    } else if (c === ']' && inClass) {
      inClass = false;
      out += c;
    } else if (!inClass && patStr.startsWith('(?i:', i)) {
      const end = patStr.indexOf(')', i);
      out += `(?:${caseless(patStr.slice(i + 4, end))})`;
      i = end;
    } else out += c;
  }
  return new RegExp(out, 'gu');
}

/** Letters of a plain alternation become classes of their case folds. */
function caseless(alternation: string): string {
  return alternation.replace(/[a-z]/gi, (ch) => {
    const lower = ch.toLowerCase();
    return `[${FOLDS[lower] ?? lower + lower.toUpperCase()}]`;
  });
}

const require = createRequire(import.meta.url);

/** The encoding's pattern as the tiktoken package ships it (the first key of its rank file). */
export function patStrOf(encoding: string): string {
  let patStr = patStrs.get(encoding);
  if (patStr === undefined) {
    // Read once: the file is the whole rank list (1-4 MB of JSON).
    patStr = (JSON.parse(readFileSync(require.resolve(`tiktoken/encoders/${encoding}.json`), 'utf8')) as { pat_str: string }).pat_str;
    patStrs.set(encoding, patStr);
  }
  return patStr;
}
const patStrs = new Map<string, string>();
