import type { Static } from 'typebox';
import { loadTokenizer, spanCounter, type ChunkerImpl, type Span } from '../../kernel/index.js';
import type { PassageConfig } from './index.js';

type Config = Static<typeof PassageConfig>;

/** Boundary strengths, strongest first: the index into PENALTIES. */
export const SECTION = 0, PARAGRAPH = 1, LINE = 2, SENTENCE = 3, WORD = 4, TOKEN = 5;

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

export async function create(config: Config): Promise<ChunkerImpl> {
  const tokenizer = await loadTokenizer(config.tokenizer);
  const max = config.chunk_size;
  const target = Math.max(1, config.target * max);
  return {
    chunk(text) {
      const counter = spanCounter(tokenizer, text);
      const count = (a: number, b: number) => counter.count(a, b);
      const cuts = boundaries(text);
      fillGaps(text, cuts, count, max, () => counter.ends());
      const pos = [0, ...[...cuts.keys()].sort((a, b) => a - b), text.length];
      const strength = pos.map((p, i) => (i === 0 || i === pos.length - 1 ? -1 : cuts.get(p)!));
      const m = pos.length - 1;
      const best = new Float64Array(m + 1).fill(Infinity);
      const from = new Int32Array(m + 1);
      best[0] = 0;
      for (let j = 1; j <= m; j++) {
        const cut = strength[j]! < 0 ? 0 : PENALTIES[strength[j]!]!;
        for (let i = j - 1; i >= 0 && j - i <= MAX_BACK; i--) {
          const t = count(pos[i]!, pos[j]!);
          if (t > max && i < j - 1) break;
          const c = best[i]! + ((t - target) / target) ** 2 + cut;
          if (c < best[j]!) { best[j] = c; from[j] = i; }
        }
      }
      const spans: Span[] = [];
      for (let j = m; j > 0; j = from[j]!) spans.push({ start: pos[from[j]!]!, end: pos[j]!, tokenCount: count(pos[from[j]!]!, pos[j]!) });
      spans.reverse();
      if (config.context === 'title') addTitles(spans, text);
      return spans;
    },
  };
}

/**
 * Cost of ending a chunk at a boundary of each strength (section, paragraph, line, sentence, word,
 * token), added to the size cost ((tokens − target) / target)²: a paragraph end is free, a cut
 * inside a sentence costs as much as a chunk of size 0 or twice the target.
 */
const PENALTIES = [0, 0, 0.1, 0.3, 1, 3];

/** Most candidate cuts a chunk may span (bounds the work on texts of many tiny lines). */
const MAX_BACK = 4096;

/** Cut positions (UTF-16 offsets inside the text) with the strength of the boundary there. */
export function boundaries(text: string): Map<number, number> {
  const cuts = new Map<number, number>();
  const put = (p: number, s: number) => {
    if (p <= 0 || p >= text.length) return;
    const old = cuts.get(p);
    if (old === undefined || s < old) cuts.set(p, s);
  };
  for (const m of text.matchAll(SENTENCE_END)) put(m.index + m[0].length, SENTENCE);
  for (const m of text.matchAll(LINE_BREAKS)) {
    const end = m.index + m[0].length;
    const lineStart = text.lastIndexOf('\n', m.index - 1) + 1;
    const before = text.slice(Math.max(lineStart, text.lastIndexOf('\r', m.index - 1) + 1), m.index);
    const nextLineEnd = text.slice(end).search(/[\r\n]|$/);
    const after = text.slice(end, end + nextLineEnd);
    if (isHeading(after)) put(end, SECTION);
    else if (isHeading(before)) cuts.delete(end); // a heading stays with what follows
    else put(end, /[\r\n][ \t]*[\r\n]|\r\n[ \t]*\r\n/.test(m[0]) || (m[0].match(/\r\n|\n|\r/g) ?? []).length > 1 ? PARAGRAPH : LINE);
  }
  return cuts;
}

/** Where two cuts lie more than `max` tokens apart, add word boundaries, then token boundaries. */
function fillGaps(text: string, cuts: Map<number, number>, count: (a: number, b: number) => number, max: number, ends: () => Uint32Array): void {
  const gaps = (add: (a: number, b: number) => void) => {
    const pos = [0, ...[...cuts.keys()].sort((a, b) => a - b), text.length];
    for (let i = 1; i < pos.length; i++) if (count(pos[i - 1]!, pos[i]!) > max) add(pos[i - 1]!, pos[i]!);
  };
  gaps((a, b) => {
    WHITESPACE.lastIndex = a;
    for (let m = WHITESPACE.exec(text); m && m.index < b; m = WHITESPACE.exec(text)) {
      const p = m.index + m[0].length;
      if (p < b && !cuts.has(p)) cuts.set(p, WORD);
    }
  });
  gaps((a, b) => {
    for (const e of ends()) if (e > a && e < b && !cuts.has(e)) cuts.set(e, TOKEN);
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
  const top = Math.min(...titles.map((t) => t.level));
  const tops = titles.filter((t) => t.level === top);
  let k = -1;
  for (const s of spans) {
    while (k + 1 < tops.length && tops[k + 1]!.start <= s.start) k++;
    if (k >= 0 && tops[k]!.end <= s.start) s.context = { start: tops[k]!.start, end: tops[k]!.end };
  }
}
