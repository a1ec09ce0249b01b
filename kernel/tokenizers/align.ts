/**
 * Token end offsets for tokenizers that report no offsets (@huggingface/tokenizers gives token
 * strings only). Each token's surface text is found in the input after the previous token,
 * comparing case- and accent-folded text (what uncased normalisers do). A token that cannot be
 * found there (an unknown or byte-fallback token) ends where the next found token begins, so the
 * ends are always non-decreasing, on code-point boundaries, and the last one is the text's end:
 * every character belongs to exactly one token's span.
 */
export function alignTokens(text: string, tokens: string[], surface: (token: string) => string): Uint32Array {
  const { folded, end } = foldWithMap(text);
  const startOf = (j: number) => (j === 0 ? 0 : end[j - 1]!);
  const out = new Uint32Array(tokens.length);
  let cursor = 0; // in folded units
  let pending = 0; // tokens not yet placed
  for (let k = 0; k < tokens.length; k++) {
    const s = fold(surface(tokens[k]!)).trim();
    const at = s ? find(folded, s, cursor, pending > 0) : -1;
    if (at < 0) {
      pending++;
      continue;
    }
    for (let p = k - pending; p < k; p++) out[p] = startOf(at); // the unplaced tokens own the gap
    pending = 0;
    cursor = at + s.length;
    out[k] = startOf(cursor);
  }
  for (let p = tokens.length - pending; p < tokens.length; p++) out[p] = text.length;
  if (tokens.length) out[tokens.length - 1] = text.length; // trailing whitespace belongs to the last token
  return out;
}

/** Where `s` starts at or after `from`, skipping only whitespace (or anything, within a bound, after unplaced tokens). */
function find(folded: string, s: string, from: number, afterGap: boolean): number {
  let i = from;
  while (i < folded.length && isSpace(folded.charCodeAt(i))) i++;
  if (folded.startsWith(s, i)) return i;
  if (!afterGap) return -1;
  const at = folded.slice(i, i + 256 + s.length).indexOf(s);
  return at < 0 ? -1 : i + at;
}

const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || c === 0xa0 || c === 0x3000 || (c >= 0x2000 && c <= 0x200a);

const fold = (s: string) => s.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '');

/** The folded text and, for each of its UTF-16 units, the end offset of the input code point it came from. */
function foldWithMap(text: string): { folded: string; end: Uint32Array } {
  const parts: string[] = [];
  let end: Uint32Array = new Uint32Array(text.length + 16);
  let n = 0;
  for (let i = 0; i < text.length;) {
    const c = text.charCodeAt(i);
    if (n === end.length) end = grow(end);
    if (c < 0x80) {
      // ASCII folds to itself, lower-cased: the common case, without a normalize() call
      parts.push(c >= 65 && c <= 90 ? String.fromCharCode(c + 32) : text[i]!);
      end[n++] = ++i;
      continue;
    }
    const cp = String.fromCodePoint(text.codePointAt(i)!);
    i += cp.length;
    const f = fold(cp);
    parts.push(f);
    for (let u = 0; u < f.length; u++) {
      if (n === end.length) end = grow(end); // NFKD can expand one character into many
      end[n++] = i;
    }
  }
  return { folded: parts.join(''), end: end.subarray(0, n) };
}

function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}
