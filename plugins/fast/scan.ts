/**
 * The byte-level cut rule of Chonkie's FastChunker (its Rust core, `chunk`): windows of `size`
 * UTF-8 bytes, each cut at the last delimiter (or pattern) inside it. Written from the rule, not
 * ported; the one deliberate difference is `snap`: a cut that would fall inside a UTF-8 sequence
 * (only a hard cut at the budget can) moves back to the start of that character, or — when the
 * character alone is wider than the budget — forward to its end, so no offset is ever inside a
 * character. Until such a cut, the cuts equal Chonkie's (fast.test.ts checks it against
 * @chonkiejs/chunk).
 */

export interface ScanOptions {
  size: number;
  /** Delimiter bytes (ASCII): table[b] is 1 for a delimiter. Ignored when `pattern` is set. */
  table: Uint8Array;
  /** A non-empty byte sequence to cut at instead of delimiters. */
  pattern?: Buffer;
  prefix: boolean;
  consecutive: boolean;
  forwardFallback: boolean;
}

/** A delimiter byte table for the ASCII characters of `delimiters`. */
export function delimiterTable(delimiters: string): Uint8Array {
  const table = new Uint8Array(256);
  for (let i = 0; i < delimiters.length; i++) table[delimiters.charCodeAt(i) & 0xff] = 1;
  return table;
}

/** The end byte of every chunk of `bytes`, in order; the chunks tile the input. */
export function cutEnds(bytes: Buffer, o: ScanOptions): number[] {
  const n = bytes.length;
  const m: Matcher = o.pattern ? patternMatcher(bytes, o.pattern) : delimiterMatcher(bytes, o.table);
  const ends: number[] = [];
  let pos = 0;
  while (pos < n) {
    if (n - pos <= o.size) {
      ends.push(n);
      break;
    }
    const budget = pos + o.size;
    const split = snap(bytes, pos, cutAt(m, n, pos, budget, o));
    ends.push(split);
    pos = split;
  }
  return ends;
}

/** Where the chunk starting at `pos` ends, as Chonkie decides it (possibly inside a character). */
function cutAt(m: Matcher, n: number, pos: number, budget: number, o: ScanOptions): number {
  const found = boundary(m, n, pos, budget, o.consecutive, o.forwardFallback);
  if (found < 0) return budget; // nothing to cut at: a hard cut at the budget
  if (found === n) return n; // forward fallback found nothing: the rest is one chunk
  if (o.prefix) return found === pos ? budget : found;
  return found + m.len;
}

/**
 * The position of the delimiter to cut at for the chunk [pos, …): the last one in the window
 * [pos, budget) after `pos` (with `consecutive`, the last that starts a run), else with
 * `forwardFallback` the first one from the budget on (n when none); -1 when there is none.
 */
function boundary(m: Matcher, n: number, pos: number, budget: number, consecutive: boolean, forwardFallback: boolean): number {
  if (m.len === 0) return -1; // no delimiters: hard cuts, even with forwardFallback (as Chonkie)
  let searchEnd = budget;
  while (searchEnd > pos) {
    const at = m.last(pos, searchEnd);
    if (at < 0) break;
    if (!consecutive || !m.repeatAt(at)) {
      if (at > pos) return at;
      break; // the only candidate is the chunk's own first byte: no progress from it
    }
    searchEnd = at; // inside a run: look further back for its start
  }
  if (!forwardFallback) return -1;
  let from = budget;
  if (consecutive) from = Math.max(from, m.runEnd(pos)); // a chunk opening on a run skips all of it
  while (from < n) {
    const at = m.first(from);
    if (at < 0) break;
    if (!consecutive || !m.repeatAt(at)) return at;
    from = at + 1;
  }
  return n;
}

/** Moves a cut that falls inside a UTF-8 sequence to a character boundary (see the file comment). */
function snap(bytes: Buffer, pos: number, split: number): number {
  if (split >= bytes.length || (bytes[split]! & 0xc0) !== 0x80) return split;
  let back = split;
  while (back > pos && (bytes[back]! & 0xc0) === 0x80) back--;
  if (back > pos) return back;
  let forward = split;
  while (forward < bytes.length && (bytes[forward]! & 0xc0) === 0x80) forward++;
  return forward;
}

interface Matcher {
  /** Length of a match in bytes; 0 when there is nothing to match (an empty delimiter set). */
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

function delimiterMatcher(bytes: Buffer, table: Uint8Array): Matcher {
  return {
    len: table.includes(1) ? 1 : 0,
    last(lo, hi) {
      for (let i = hi - 1; i >= lo; i--) if (table[bytes[i]!] === 1) return i;
      return -1;
    },
    first(from) {
      for (let i = from; i < bytes.length; i++) if (table[bytes[i]!] === 1) return i;
      return -1;
    },
    repeatAt: (at) => at > 0 && bytes[at - 1] === bytes[at],
    runEnd(at) {
      if (table[bytes[at]!] !== 1) return at;
      let i = at;
      while (i < bytes.length && bytes[i] === bytes[at]) i++;
      return i;
    },
  };
}

function patternMatcher(bytes: Buffer, pattern: Buffer): Matcher {
  const len = pattern.length;
  const isAt = (i: number) => i >= 0 && i + len <= bytes.length && bytes.compare(pattern, 0, len, i, i + len) === 0;
  return {
    len,
    last(lo, hi) {
      if (hi - lo < len) return -1;
      const at = bytes.subarray(lo, hi).lastIndexOf(pattern);
      return at < 0 ? -1 : lo + at;
    },
    first: (from) => bytes.indexOf(pattern, from),
    repeatAt: (at) => isAt(at - len),
    runEnd(at) {
      let i = at;
      while (isAt(i)) i += len;
      return i;
    },
  };
}
