/**
 * The one delimiter splitter, shared by the sentence, recursive and semantic chunkers and the
 * overlap refinery: find delimiters, attach each one to the piece before or after it, and merge
 * pieces that are too short, by the rules of Chonkie's core so the same request gives the same
 * chunks. Works on UTF-16 spans into the text (no substrings are built), so callers cut and count
 * by offset. Matching UTF-16 text equals Chonkie's matching of UTF-8 bytes: a delimiter's encoding
 * can only match at a character boundary, and both encodings keep the order of positions.
 */
import { utf8LengthUpTo } from './utf8.js';

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
  /** Pieces shorter than this many UTF-8 bytes merge with a neighbour (0 or 1: never). */
  minCharacters: number;
  /**
   * How short pieces merge: 'chonkie' (the default, see mergeShort) or 'forward' (see
   * mergeForward: short pieces gather into runs of at least the minimum, so words stay whole).
   */
  mergeRule?: MergeRule;
}

export type MergeRule = 'chonkie' | 'forward';

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
  const merge = options.mergeRule === 'forward' ? mergeForward : mergeShort;
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
    return min > 1 ? merge(text, pieces, min) : pieces;
  };
}

const splitters = new Map<string, Splitter>();

/** Split `text` into sentence spans that tile it exactly; splitters are cached per options. */
export function splitSentences(text: string, options: SplitOptions): SentenceSpan[] {
  const key = JSON.stringify([options.delim, options.includeDelim, options.minCharacters, options.mergeRule ?? 'chonkie']);
  let split = splitters.get(key);
  if (!split) {
    if (splitters.size >= 256) splitters.clear(); // bound the cache; rebuilding is cheap
    split = sentenceSplitter(options);
    splitters.set(key, split);
  }
  return split(text);
}

/**
 * Chonkie's rule (its core's `split_offsets` / `split_pattern_offsets`): the first piece opens a
 * running piece; each next piece joins it when either of the two is shorter than `min` UTF-8 bytes,
 * otherwise the running piece is kept and the next one opens a new run. The last run is kept as it
 * is, so a short last piece ends up in the piece before it.
 */
function mergeShort(text: string, pieces: SentenceSpan[], min: number): SentenceSpan[] {
  if (pieces.length === 0) return pieces;
  // Compacted in place: the pieces are this call's own, so merging rewrites them, allocating nothing.
  let kept = 0;
  let run = pieces[0]!;
  // Bytes of the running piece, capped at `min`: once it is long enough, it stays so as it grows.
  let runBytes = utf8LengthUpTo(text, run.start, run.end, min);
  for (let i = 1; i < pieces.length; i++) {
    const p = pieces[i]!;
    const bytes = utf8LengthUpTo(text, p.start, p.end, min);
    if (runBytes < min || bytes < min) {
      run.end = p.end;
      runBytes = Math.min(min, runBytes + bytes);
    } else {
      pieces[kept++] = run;
      run = p;
      runBytes = bytes;
    }
  }
  pieces[kept++] = run;
  pieces.length = kept;
  return pieces;
}

/**
 * The opt-in rule: short pieces gather forward until the run reaches `min` UTF-8 bytes (a short
 * piece joins the piece after it), and a short run left at the end joins the piece before. Unlike
 * Chonkie's rule, a run never grows past the minimum by taking more short pieces, so a sentence of
 * short words is not glued into one piece that a later level must cut inside a word.
 */
function mergeForward(text: string, pieces: SentenceSpan[], min: number): SentenceSpan[] {
  let kept = 0;
  let runStart = -1; // start of the pending run of short pieces, -1 when none
  let runBytes = 0;
  for (const p of pieces) {
    const bytes = Math.min(min, (runStart >= 0 ? runBytes : 0) + utf8LengthUpTo(text, p.start, p.end, min));
    if (bytes < min) {
      if (runStart < 0) runStart = p.start;
      runBytes = bytes;
    } else {
      if (runStart >= 0) p.start = runStart;
      pieces[kept++] = p;
      runStart = -1;
    }
  }
  if (runStart >= 0) {
    if (kept > 0) pieces[kept - 1]!.end = pieces[pieces.length - 1]!.end;
    else pieces[kept++] = { start: runStart, end: pieces[pieces.length - 1]!.end };
  }
  pieces.length = kept;
  return pieces;
}
