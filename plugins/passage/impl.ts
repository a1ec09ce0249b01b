import type { Static } from '#typebox';
import { loadTokenizer, spanCounter, upperBound, type ChunkerImpl, type Span, type SpanRef } from '../../kernel/index.js';
import type { PassageConfig } from './index.js';

type Config = Static<typeof PassageConfig>;

/** Boundary strengths, strongest first: the index into PENALTIES. */
export const SECTION = 0,
  PARAGRAPH = 1,
  LINE = 2,
  SENTENCE = 3,
  WORD = 4,
  TOKEN = 5;

/** A Markdown ATX heading (`## Title`) or a MediaWiki one (`== Title ==`, also spaced as `= = Title = =`). */
const MARKDOWN_HEADING = /^ {0,3}(#{1,6})(?:[ \t]+\S.*)?$/;
const MEDIAWIKI_HEADING = /^[ \t]*((?:=[ \t]*)+)[^=\s](?:.*?[^=\s])?[ \t]*((?:=[ \t]*)+)$/;

/** The heading level of a line (1 = top), or 0 when the line is not a heading. */
export function headingLevel(line: string): number {
  const md = MARKDOWN_HEADING.exec(line);
  if (md) return md[1]!.length;
  const mw = MEDIAWIKI_HEADING.exec(line);
  if (!mw) return 0;
  const open = mw[1]!.replace(/[ \t]/g, '').length;
  return open === mw[2]!.replace(/[ \t]/g, '').length && open <= 6 ? open : 0;
}
const isHeading = (line: string) => headingLevel(line) > 0;
const LINE_BREAKS = /(?:\r\n|\n|\r)(?:[ \t]*(?:\r\n|\n|\r))*/g;
const SENTENCE_END = /[.!?…](?:["'”’)\]]*)[ \t]+|[。！？](?:["'”’」』）)\]]*)[ \t]*/g;
const WHITESPACE = /\s+/g;
const NEXT_BREAK = /[\r\n]/g;
/** Two line breaks in one run (blank lines between them may hold spaces or tabs): a paragraph break. */
const BLANK_LINE = /(?:\r\n|\n|\r)[ \t]*(?:\r\n|\n|\r)/;

export async function create(config: Config): Promise<ChunkerImpl> {
  const tokenizer = await loadTokenizer(config.tokenizer);
  const max = config.chunk_size;
  const target = Math.max(1, config.target * max);
  return {
    chunk(text) {
      const counter = spanCounter(tokenizer, text);
      const count = (a: number, b: number) => counter.count(a, b);
      const ends = counter.ends();
      const cuts = boundaries(text);
      const step = Math.max(1, Math.floor(max / GRAIN));
      // Thinning moves a cut by less than a step either way: gaps are filled below max by two steps.
      fillGaps(text, cuts, count, ends, step > 1 ? max - 2 * step : max, step);
      const pos = thin(cuts, ends, text.length, step);
      // A chunk's size is the sum of the counts of the pieces between the cuts it spans: the exact
      // count for character, byte and BPE counted by offset (additive), at least the exact count for
      // a tokenizer that re-counts pieces (word), so a chunk never exceeds chunk_size.
      const prefix = [0];
      for (let k = 1; k < pos.length; k++) prefix.push(prefix[k - 1]! + count(pos[k - 1]!, pos[k]!));
      const m = pos.length - 1;
      const best = new Float64Array(m + 1).fill(Infinity);
      const from = new Int32Array(m + 1);
      best[0] = 0;
      for (let j = 1; j <= m; j++) {
        const cut = j === m ? 0 : PENALTIES[cuts.get(pos[j]!)!]!;
        for (let i = j - 1; i >= 0 && j - i <= MAX_BACK; i--) {
          const t = prefix[j]! - prefix[i]!;
          if (t > max && i < j - 1) break;
          const c = best[i]! + ((t - target) / target) ** 2 + cut;
          if (c < best[j]!) {
            best[j] = c;
            from[j] = i;
          }
        }
      }
      const spans: Span[] = [];
      for (let j = m; j > 0; j = from[j]!) spans.push({ start: pos[from[j]!]!, end: pos[j]!, tokenCount: counter.count(pos[from[j]!]!, pos[j]!) });
      spans.reverse();
      if (config.context !== 'none') addTitles(spans, text);
      if (config.context === 'window') addWindows(spans, text, ends, config.window);
      return config.repeats === 'drop' ? firstCopies(spans, text) : spans;
    },
  };
}

/**
 * Cost of ending a chunk at a boundary of each strength (section, paragraph, line, sentence, word,
 * token), added to the size cost ((tokens − target) / target)²: a paragraph end is free, a cut
 * inside a sentence costs as much as a chunk of size 0 or twice the target.
 */
const PENALTIES = [0, 0, 0.1, 0.3, 1, 3];

/**
 * Cuts are kept at most one per chunk_size / GRAIN tokens (the strongest in each such stretch), so
 * a chunk spans at most about GRAIN candidate cuts whatever the text (many tiny lines, no spaces).
 */
const GRAIN = 128;
/** A bound on the candidates one chunk may span, should a text still hold more. */
const MAX_BACK = 1024;

/** The cut positions in order, the text's ends included: at most one cut (the strongest) per `step` tokens. */
function thin(cuts: Map<number, number>, ends: Uint32Array, length: number, step: number): number[] {
  const sorted = [...cuts.keys()].sort((a, b) => a - b);
  if (step === 1) return [0, ...sorted, length];
  const pos = [0];
  let bucket = -1;
  for (const p of sorted) {
    const b = Math.floor(upperBound(ends, p) / step);
    if (b === bucket && pos.length > 1) {
      if (cuts.get(p)! < cuts.get(pos[pos.length - 1]!)!) pos[pos.length - 1] = p;
      continue;
    }
    bucket = b;
    pos.push(p);
  }
  pos.push(length);
  return pos;
}

/** Cut positions (UTF-16 offsets inside the text) with the strength of the boundary there. */
export function boundaries(text: string): Map<number, number> {
  const cuts = new Map<number, number>();
  const put = (p: number, s: number) => {
    if (p <= 0 || p >= text.length) return;
    const old = cuts.get(p);
    if (old === undefined || s < old) cuts.set(p, s);
  };
  for (const m of text.matchAll(SENTENCE_END)) put(m.index + m[0].length, SENTENCE);
  let lineStart = 0; // start of the line that ends at the current run of line breaks
  for (const m of text.matchAll(LINE_BREAKS)) {
    const end = m.index + m[0].length;
    const before = text.slice(lineStart, m.index);
    NEXT_BREAK.lastIndex = end;
    const after = text.slice(end, NEXT_BREAK.exec(text)?.index ?? text.length);
    lineStart = end;
    if (isHeading(after)) put(end, SECTION);
    else if (isHeading(before))
      cuts.delete(end); // a heading stays with what follows
    else put(end, BLANK_LINE.test(m[0]) ? PARAGRAPH : LINE);
  }
  return cuts;
}

/** Where two cuts lie more than `limit` tokens apart, add word boundaries, then token boundaries (every `step` tokens). */
function fillGaps(text: string, cuts: Map<number, number>, count: (a: number, b: number) => number, ends: Uint32Array, limit: number, step: number): void {
  const gaps = (add: (a: number, b: number) => void) => {
    const pos = [0, ...[...cuts.keys()].sort((a, b) => a - b), text.length];
    for (let i = 1; i < pos.length; i++) if (count(pos[i - 1]!, pos[i]!) > limit) add(pos[i - 1]!, pos[i]!);
  };
  gaps((a, b) => {
    WHITESPACE.lastIndex = a;
    for (let m = WHITESPACE.exec(text); m && m.index < b; m = WHITESPACE.exec(text)) {
      const p = m.index + m[0].length;
      if (p < b && !cuts.has(p)) cuts.set(p, WORD);
    }
  });
  gaps((a, b) => {
    for (let k = upperBound(ends, a) + step - 1; k < ends.length && ends[k]! < b; k += step) if (!cuts.has(ends[k]!)) cuts.set(ends[k]!, TOKEN);
  });
}

/** Each chunk after a top-level heading gets that heading line as its context (unless it holds it). */
function addTitles(spans: Span[], text: string): void {
  const titles: { start: number; end: number; level: number }[] = [];
  for (const m of text.matchAll(/[^\r\n]+/g)) {
    const level = headingLevel(m[0]);
    if (level > 0) titles.push({ start: m.index, end: m.index + m[0].trimEnd().length, level });
  }
  if (!titles.length) return;
  const top = titles.reduce((m, t) => Math.min(m, t.level), Infinity); // not Math.min(...): one title per line, any number
  const tops = titles.filter((t) => t.level === top);
  let k = -1;
  for (const s of spans) {
    while (k + 1 < tops.length && tops[k + 1]!.start <= s.start) k++;
    if (k >= 0 && tops[k]!.end <= s.start) s.context = { start: tops[k]!.start, end: tops[k]!.end };
  }
}

/** The spans whose text and context no earlier span has (the first copy of each repeated passage). */
function firstCopies(spans: Span[], text: string): Span[] {
  const seen = new Set<string>();
  return spans.filter((s) => {
    const context = [s.context ?? []]
      .flat()
      .map((r) => text.slice(r.start, r.end))
      .join('\n');
    const key = `${context.length}:${context}${text.slice(s.start, s.end)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * Each chunk's context: the text from `size` tokens before it to `size` tokens after it (the chunk
 * included), after its title (a top-level heading line before the window) when it has one.
 */
function addWindows(spans: Span[], text: string, ends: Uint32Array, size: number): void {
  for (const s of spans) {
    const title = s.context as SpanRef | undefined;
    const before = upperBound(ends, s.start) - 1 - size; // the token that ends where the window starts
    const after = upperBound(ends, s.end) + size - 1; // the last token of the window
    const start = before >= 0 ? Math.min(ends[before]!, s.start) : 0;
    const end = after < ends.length ? Math.max(ends[after]!, s.end) : text.length;
    const window = { start: outside(text, start, -1), end: outside(text, end, 1) };
    s.context = title && title.end <= window.start ? [title, window] : window;
  }
}

/** An offset moved off the middle of a surrogate pair, in the given direction. */
function outside(text: string, i: number, direction: 1 | -1): number {
  const hi = text.charCodeAt(i - 1);
  const lo = text.charCodeAt(i);
  return hi >= 0xd800 && hi <= 0xdbff && lo >= 0xdc00 && lo <= 0xdfff ? i + direction : i;
}
