/**
 * The cut rule of Chonkie's FastChunker (its Rust core, `chunk`): windows of `size` UTF-8 bytes,
 * each cut at the last delimiter (or pattern) inside it. Written from the rule, not ported, and run
 * on the JavaScript string itself with a running byte count (encoding the text to bytes first cost
 * more than the whole cut). The one deliberate difference: a hard cut at the budget never falls
 * inside a character — it stops before the character the budget ends in, or, when that character
 * alone is wider than the budget, just after it. Until such a cut, the cuts equal Chonkie's byte
 * for byte (fast.test.ts checks it against @chonkiejs/chunk).
 */

import type { Span } from '../../kernel/index.js';

export interface ScanOptions {
  size: number;
  /** ASCII delimiters: table[c] is 1 for a delimiter character code. Ignored when `pattern` is set. */
  table: Uint8Array;
  /** A non-empty, well-formed string to cut at instead of delimiters. */
  pattern?: string;
  prefix: boolean;
  consecutive: boolean;
  forwardFallback: boolean;
}

export function delimiterTable(delimiters: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < delimiters.length; i++) if (delimiters.charCodeAt(i) < 128) table[delimiters.charCodeAt(i)] = 1;
  return table;
}

/**
 * The chunks, as the spans the kernel takes (UTF-16 offsets; tokenCount: the chunk's UTF-8 bytes,
 * the unit `size` limits); they tile the text. Built as the scan goes, with no arrays beside them.
 */
export function cut(text: string, o: ScanOptions): Span[] {
  const n = text.length;
  const t = new Text(text, !NON_ASCII.test(text));
  const m: Matcher = o.pattern ? patternMatcher(text, o.pattern) : delimiterMatcher(text, o.table);
  const simple = !o.pattern && !o.consecutive && m.len > 0;
  const spans: Span[] = [];
  let pos = 0;
  let posB = 0;
  // The last window's end: when a cut falls before it, [pos, win) is measured already, so the
  // next window is measured from there (each unit of the text is measured about once).
  let win = 0;
  let winB = 0;
  while (pos < n) {
    const budget = posB + o.size;
    const from = win > pos;
    win = t.advance(from ? win : pos, from ? winB : posB, budget); // the last character boundary within the budget
    winB = t.lastBytes;
    if (win === n) {
      // The rest fits (measured on the way, so the text's length in bytes is never computed apart).
      spans.push({ start: pos, end: n, tokenCount: winB - posB });
      break;
    }
    // The usual case, delimiters without `consecutive`: one walk back from the budget finds the
    // last delimiter and counts the bytes it passes, so the cut's byte offset needs no second walk.
    const last = simple ? t.lastDelimiter(o.table, pos, win) : -1;
    if (last >= 0) {
      const end = o.prefix ? last : last + 1;
      const endB = winB - t.tailBytes - (o.prefix ? 1 : 0);
      spans.push({ start: pos, end, tokenCount: endB - posB });
      pos = end;
      posB = endB;
      continue;
    }
    let end: number;
    // (With `simple`, the walk back has already found no delimiter after pos.)
    const found = m.len === 0 ? -1 : simple ? forwardMatch(t, m, pos, win, winB < budget, o) : boundary(t, m, pos, win, winB < budget, o);
    if (found < 0)
      end = win > pos ? win : t.nextBoundary(pos); // a hard cut, never inside a character
    else if (found === n) end = n;
    else if (o.prefix) end = found;
    else end = found + m.len;
    const endB = t.bytesAt(end, win, winB);
    spans.push({ start: pos, end, tokenCount: endB - posB });
    pos = end;
    posB = endB;
  }
  return spans;
}

const NON_ASCII = /[^\x00-\x7f]/;
const WIDE = /[^\x00-\x7f]/g;

/** The first non-ASCII unit of s at or after j, or s.length. */
function nextWide(s: string, j: number): number {
  WIDE.lastIndex = j;
  return WIDE.test(s) ? WIDE.lastIndex - 1 : s.length;
}

/**
 * Where to cut the chunk [pos, …) (in Chonkie's terms, `find_*_boundary`): the last match inside
 * the window [pos, win) that starts after `pos` (with `consecutive`, the last that starts a run),
 * else with `forwardFallback` the first match starting at or after the budget byte (the n of the
 * text when none); -1 when there is nothing to cut at. `straddle`: a character crosses the budget,
 * so the first position at or after the budget byte is that character's end.
 */
function boundary(t: Text, m: Matcher, pos: number, win: number, straddle: boolean, o: ScanOptions): number {
  let searchEnd = win;
  while (searchEnd > pos) {
    const at = m.last(pos, searchEnd);
    if (at < 0) break;
    if (!o.consecutive || !m.repeatAt(at)) {
      if (at > pos) return at;
      break; // the only candidate is the chunk's own start: cutting there is no progress
    }
    searchEnd = at; // inside a run: look further back for its start
  }
  return forwardMatch(t, m, pos, win, straddle, o);
}

/** boundary's second half: with `forwardFallback`, the first match at or after the budget byte (n when none); else -1. */
function forwardMatch(t: Text, m: Matcher, pos: number, win: number, straddle: boolean, o: ScanOptions): number {
  if (!o.forwardFallback) return -1;
  const n = t.text.length;
  let from = straddle ? t.nextBoundary(win) : win;
  if (o.consecutive) from = Math.max(from, m.runEnd(pos)); // a chunk opening on a run skips all of it
  while (from < n) {
    const at = m.first(from);
    if (at < 0) break;
    if (!o.consecutive || !m.repeatAt(at)) return at;
    from = at + 1;
  }
  return n;
}

/** A text with UTF-8 byte arithmetic over its UTF-16 indices (a lone surrogate is the 3 bytes of U+FFFD it encodes to). */
class Text {
  /** Byte offset of the index the last advance() stopped at. */
  lastBytes = 0;
  /** Bytes of [found + 1, win) after lastDelimiter found a delimiter at `found`. */
  tailBytes = 0;
  /** The next non-ASCII unit at or after the last place looked from (n: none); -1 before the first look. */
  private wide = -1;
  constructor(
    readonly text: string,
    readonly ascii: boolean,
  ) {}

  /**
   * The largest code point boundary j ≥ i whose byte offset is ≤ limitB, given i's byte offset iB.
   * Pieces are measured with the native UTF-8 length: a piece of k units holds at least k bytes, so
   * k = the bytes left is the most that can fit, and an over-full piece shrunk by its excess always
   * fits; the last few bytes (or dense multi-byte text) are walked a character at a time.
   */
  advance(i: number, iB: number, limitB: number): number {
    const s = this.text;
    const n = s.length;
    if (this.ascii) {
      const j = Math.min(i + (limitB - iB), n);
      this.lastBytes = iB + (j - i);
      return j;
    }
    let j = i;
    let left = limitB - iB;
    // Units before the next non-ASCII one are a byte each: that stretch needs no measuring.
    if (this.wide < j) this.wide = nextWide(s, j);
    if (this.wide >= j + left || this.wide === n) {
      j = Math.min(j + left, n);
      this.lastBytes = iB + (j - i);
      return j;
    }
    left -= this.wide - j;
    j = this.wide;
    while (left >= 4 && j < n) {
      const k = this.whole(j, Math.min(left, n - j));
      let bytes = utf8(s, j, j + k);
      if (bytes <= left) {
        j += k;
        left -= bytes;
        continue;
      }
      // Over by `bytes - left`: shed characters from the piece's end, each at least one byte, so
      // this walks at most that many units instead of measuring the piece a second time.
      let e = j + k;
      while (bytes > left) {
        const c = s.charCodeAt(e - 1);
        if (isLow(c) && e - 2 >= j && isHigh(s.charCodeAt(e - 2))) ((bytes -= 4), (e -= 2));
        else ((bytes -= c < 0x80 ? 1 : c < 0x800 ? 2 : 3), e--);
      }
      if (e === j) break;
      left -= bytes;
      j = e;
    }
    while (j < n) {
      const c = s.charCodeAt(j);
      let w: number;
      let units = 1;
      if (c < 0x80) w = 1;
      else if (c < 0x800) w = 2;
      else if (c >= 0xd800 && c <= 0xdbff && j + 1 < n && isLow(s.charCodeAt(j + 1))) ((w = 4), (units = 2));
      else w = 3;
      if (w > left) break;
      j += units;
      left -= w;
    }
    this.lastBytes = limitB - left;
    return j;
  }

  /** k, or k − 1 when [j, j + k) would end between the halves of a surrogate pair. */
  private whole(j: number, k: number): number {
    if (k <= 0) return k;
    const e = j + k;
    return e < this.text.length && isLow(this.text.charCodeAt(e)) && isHigh(this.text.charCodeAt(e - 1)) ? k - 1 : k;
  }

  /**
   * The last delimiter in (pos, win), walking back from win, or -1; counts the bytes it walks past
   * (tailBytes). A delimiter is ASCII, so it is never part of a surrogate pair or a wider character.
   */
  lastDelimiter(table: Uint8Array, pos: number, win: number): number {
    const s = this.text;
    let bytes = 0;
    for (let i = win - 1; i > pos; i--) {
      const c = s.charCodeAt(i);
      if (c < 0x80) {
        if (table[c] === 1) {
          this.tailBytes = bytes;
          return i;
        }
        bytes += 1;
      } else if (c < 0x800) bytes += 2;
      else if (isLow(c) && i - 1 > pos && isHigh(s.charCodeAt(i - 1))) ((bytes += 4), i--);
      else bytes += 3;
    }
    return -1;
  }

  /** The end of the code point starting at i. */
  nextBoundary(i: number): number {
    const s = this.text;
    const c = s.charCodeAt(i);
    return c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && isLow(s.charCodeAt(i + 1)) ? i + 2 : i + 1;
  }

  /** Byte offset of index j (a code point boundary), from a known pair (k, kB); costs |j − k|. */
  bytesAt(j: number, k: number, kB: number): number {
    if (this.ascii) return kB + (j - k);
    return j >= k ? kB + this.bytesBetween(k, j) : kB - this.bytesBetween(j, k);
  }

  /** Short spans (the usual tail between a cut and the budget) are walked; long ones measured natively. */
  private bytesBetween(a: number, b: number): number {
    if (b - a > 64) return utf8(this.text, a, b);
    const s = this.text;
    let bytes = 0;
    for (let i = a; i < b; i++) {
      const c = s.charCodeAt(i);
      if (c < 0x80) bytes += 1;
      else if (c < 0x800) bytes += 2;
      else if (isHigh(c) && i + 1 < b && isLow(s.charCodeAt(i + 1))) ((bytes += 4), i++);
      else bytes += 3;
    }
    return bytes;
  }
}

/** UTF-8 length of s[a, b) (both code point boundaries), natively; a lone surrogate counts 3, as it encodes. */
const utf8 = (s: string, a: number, b: number) => Buffer.byteLength(s.slice(a, b), 'utf8');
const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

interface Matcher {
  /** Length of a match in UTF-16 units; 0 when there is nothing to match (an empty delimiter set). */
  len: number;
  /** Start of the last match lying wholly inside [lo, hi), or -1. */
  last(lo: number, hi: number): number;
  /** Start of the first match at or after `from`, or -1. */
  first(from: number): number;
  /** Whether the match at `at` directly follows the same delimiter (or the pattern): it is inside a run. */
  repeatAt(at: number): boolean;
  /** The end of the run of matches starting at `at` (`at` itself when none starts there). */
  runEnd(at: number): number;
}

/** ASCII delimiters: an ASCII byte is never part of a multi-byte character, so a UTF-16 match is the byte match. */
function delimiterMatcher(s: string, table: Uint8Array): Matcher {
  const isDelim = (i: number) => {
    const c = s.charCodeAt(i);
    return c < 128 && table[c] === 1;
  };
  return {
    len: table.includes(1) ? 1 : 0,
    last(lo, hi) {
      for (let i = hi - 1; i >= lo; i--) {
        const c = s.charCodeAt(i);
        if (c < 128 && table[c] === 1) return i;
      }
      return -1;
    },
    first(from) {
      for (let i = from; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c < 128 && table[c] === 1) return i;
      }
      return -1;
    },
    repeatAt: (at) => at > 0 && s.charCodeAt(at - 1) === s.charCodeAt(at),
    runEnd(at) {
      if (!isDelim(at)) return at;
      let i = at;
      while (i < s.length && s.charCodeAt(i) === s.charCodeAt(at)) i++;
      return i;
    },
  };
}

/**
 * A well-formed pattern matches in UTF-16 exactly where its UTF-8 bytes match in the text's bytes
 * (both encodings are self-synchronizing), except at a lone surrogate of the text, whose U+FFFD
 * bytes the pattern "\uFFFD" would match in Chonkie's byte view.
 */
function patternMatcher(s: string, pattern: string): Matcher {
  const len = pattern.length;
  return {
    len,
    last(lo, hi) {
      if (hi - lo < len) return -1;
      const at = s.slice(lo, hi).lastIndexOf(pattern); // a slice, so the search stops at lo
      return at < 0 ? -1 : lo + at;
    },
    first: (from) => s.indexOf(pattern, from),
    repeatAt: (at) => at >= len && s.startsWith(pattern, at - len),
    runEnd(at) {
      let i = at;
      while (s.startsWith(pattern, i)) i += len;
      return i;
    },
  };
}
