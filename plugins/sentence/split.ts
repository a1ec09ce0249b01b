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
 * leftmost-first, and at one position the earlier-listed delimiter wins: exactly the semantics of
 * a regular-expression alternation, which V8 runs far faster than a hand-written multi-pattern scan.
 */
export function sentenceSplitter(options: SplitOptions): Splitter {
  const delims = typeof options.delim === 'string' ? [options.delim] : [...options.delim];
  if (delims.length === 0 || delims.some((d) => d.length === 0)) throw new Error('Delimiters must be non-empty strings.');
  const source = alternation(delims);
  const prev = options.includeDelim === 'prev';
  const min = options.minCharacters;
  const re = new RegExp(source, 'g');
  return (text, start = 0, end = text.length) => {
    // A piece of a larger text is scanned as its own string (an O(1) slice in V8), so a delimiter
    // that crosses the piece's edge cannot match, and the scan never runs past the piece.
    const piece = start === 0 && end === text.length ? text : text.slice(start, end);
    re.lastIndex = 0; // the scan below is synchronous, so sharing one RegExp between requests is safe
    const pieces: SentenceSpan[] = [];
    let last = 0;
    for (let m = re.exec(piece); m !== null; m = re.exec(piece)) {
      const cut = prev ? m.index + m[0].length : m.index;
      if (cut > last) pieces.push({ start: start + last, end: start + cut });
      last = cut;
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
  const out: SentenceSpan[] = [];
  let runStart = -1; // start of the pending run of short pieces, -1 when none
  for (const p of pieces) {
    const start = runStart >= 0 ? runStart : p.start;
    if (isShorter(text, start, p.end, min)) {
      runStart = start;
    } else {
      out.push(runStart >= 0 ? { start, end: p.end } : p);
      runStart = -1;
    }
  }
  if (runStart >= 0) {
    const tail = out.pop();
    out.push({ start: tail ? tail.start : runStart, end });
  }
  return out;
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

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The delimiters as one alternation, in order. Runs of single-character delimiters become one
 * character class — the same match at every position (one character matches at most one of
 * them) — which V8 scans much faster than a long alternation.
 */
function alternation(delims: string[]): string {
  const parts: string[] = [];
  let singles: string[] = [];
  const flush = () => {
    if (singles.length > 1) parts.push(`[${singles.map((c) => c.replace(/[\]\\^-]/g, '\\$&')).join('')}]`);
    else if (singles.length === 1) parts.push(escapeRegExp(singles[0]!));
    singles = [];
  };
  for (const d of delims) {
    if (d.length === 1) singles.push(d);
    else {
      flush();
      parts.push(escapeRegExp(d));
    }
  }
  flush();
  return parts.join('|');
}
