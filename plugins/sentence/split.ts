/**
 * Sentence splitting shared by the sentence, recursive and semantic chunkers: find delimiters,
 * attach each one to the sentence before or after it, and merge sentences that are too short.
 * Works on UTF-16 spans into the text (no substrings are built), so callers cut and count by offset.
 */

export interface SentenceSpan {
  /** UTF-16 index of the first character. */
  start: number;
  /** UTF-16 index after the last character. */
  end: number;
}

export interface SplitOptions {
  /** Delimiters, in priority order: at one position the earlier-listed one wins. */
  delim: string | readonly string[];
  /** 'prev': a delimiter ends the sentence before it; 'next': it starts the sentence after it. */
  includeDelim: 'prev' | 'next';
  /** Sentences shorter than this many code points are merged into a neighbour (0 or 1: never). */
  minCharacters: number;
}

/** Split text[start, end) (the whole text by default); spans are indices into `text`. */
export type Splitter = (text: string, start?: number, end?: number) => SentenceSpan[];

/**
 * Build a splitter once (per config) and reuse it for every text. Delimiters are matched
 * leftmost-first, non-overlapping, and at one position the earlier-listed delimiter wins (the
 * semantics of a regular-expression alternation). Each delimiter is found with `indexOf` (a native
 * memchr-style scan), keeping the next occurrence of every delimiter and re-searching only those a
 * match has passed: far cheaper than running a regular expression over every character.
 */
export function sentenceSplitter(options: SplitOptions): Splitter {
  const delims = typeof options.delim === 'string' ? [options.delim] : [...options.delim];
  if (delims.length === 0 || delims.some((d) => d.length === 0)) throw new Error('Delimiters must be non-empty strings.');
  const prev = options.includeDelim === 'prev';
  const min = options.minCharacters;
  const count = delims.length;
  const lengths = delims.map((d) => d.length);
  return (text, start = 0, end = text.length) => {
    // A piece of a larger text is scanned as its own string (an O(1) slice in V8), so a delimiter
    // that crosses the piece's edge cannot match, and no search runs past the piece.
    const piece = start === 0 && end === text.length ? text : text.slice(start, end);
    const next = new Array<number>(count); // next occurrence of each delimiter at or after `from`, -1: none left
    for (let k = 0; k < count; k++) next[k] = piece.indexOf(delims[k]!);
    const pieces: SentenceSpan[] = [];
    let last = 0;
    for (;;) {
      let best = -1;
      let at = -1;
      for (let k = 0; k < count; k++) {
        const p = next[k]!;
        if (p >= 0 && (at < 0 || p < at)) {
          at = p;
          best = k;
        }
      }
      if (best < 0) break;
      const from = at + lengths[best]!;
      const cut = prev ? from : at;
      if (cut > last) pieces.push({ start: start + last, end: start + cut });
      last = cut;
      for (let k = 0; k < count; k++) if (next[k]! >= 0 && next[k]! < from) next[k] = piece.indexOf(delims[k]!, from);
    }
    if (last < piece.length) pieces.push({ start: start + last, end });
    return min > 1 ? mergeShort(text, pieces, min, end) : pieces;
  };
}

const splitters = new Map<string, Splitter>();

/** Split `text` into sentence spans that tile it exactly; splitters are cached per options. */
export function splitSentences(text: string, options: SplitOptions): SentenceSpan[] {
  const key = JSON.stringify([options.delim, options.includeDelim, options.minCharacters]);
  let split = splitters.get(key);
  if (!split) {
    if (splitters.size >= 256) splitters.clear(); // bound the cache; rebuilding is cheap
    split = sentenceSplitter(options);
    splitters.set(key, split);
  }
  return split(text);
}

/**
 * Short pieces accumulate forward until the run reaches `min` code points (a short piece joins
 * the sentence after it); a short run left at the end joins the sentence before it.
 */
function mergeShort(text: string, pieces: SentenceSpan[], min: number, end: number): SentenceSpan[] {
  // Compacted in place: the pieces are this call's own, so merging rewrites them, allocating nothing.
  let kept = 0;
  let runStart = -1; // start of the pending run of short pieces, -1 when none
  for (const p of pieces) {
    const start = runStart >= 0 ? runStart : p.start;
    if (isShorter(text, start, p.end, min)) {
      runStart = start;
    } else {
      p.start = start;
      pieces[kept++] = p;
      runStart = -1;
    }
  }
  if (runStart >= 0) {
    if (kept > 0) pieces[kept - 1]!.end = end;
    else pieces[kept++] = { start: runStart, end };
  }
  pieces.length = kept;
  return pieces;
}

/** Whether text[start, end) holds fewer than `min` code points, without counting past `min`. */
function isShorter(text: string, start: number, end: number, min: number): boolean {
  const units = end - start;
  if (units < min) return true;
  if (units >= 2 * min) return false; // even all-surrogate-pair text has ≥ min code points
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < end) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
    if (++n >= min) return false;
  }
  return true;
}
