import { emptyStructure, type Structure } from './document.js';
import { atxHeading, closesFence, isDelimiterRow, openingFence } from './markdown-line-scan.js';

interface Line {
  start: number;
  /** End of the line's content, before its terminator (\r\n, \n or \r). */
  end: number;
  text: string;
}

/** The lines of a text with their UTF-16 offsets; every line terminator (CRLF, LF, CR) is one break. */
export function lines(text: string): Line[] {
  const out: Line[] = [];
  let start = 0;
  const re = /\r\n|\n|\r/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push({ start, end: m.index, text: text.slice(start, m.index) });
    start = m.index + m[0].length;
  }
  if (start < text.length || out.length === 0) out.push({ start, end: text.length, text: text.slice(start) });
  return out;
}

/*
 * Fences, ATX headings and table delimiter rows are read by the scanners in markdown-line-scan.ts, not by
 * regular expressions: their patterns (`[^\s`]*[^`]*$`, a lazy `.*?` before optional closing
 * hashes, `[ \t]*` repeated inside and after a group) backtrack quadratically on one long line.
 * The setext pattern below is linear: one run, then a class that cannot match the run's character.
 */
const SETEXT = /^ {0,3}(=+|-+)[ \t]*$/;
/**
 * Each part stops at the next bracket, paren or quote (the alt text cannot hold `[`, a title is at
 * most 512 characters): a candidate never scans the rest of the line, so `![` × 100,000 stays linear.
 */
const IMAGE = /!\[([^[\]\r\n]*)\]\(([^()\s]+)(?:[ \t]+"[^"\r\n]{0,512}")?\)/g;

const blank = (l: Line) => l.text.trim() === '';

/**
 * A CommonMark subset, enough to find a document's outline and its blocks with exact offsets:
 * ATX (`## x`) and setext (underlined) headings, fenced code blocks (``` or ~~~, with the info
 * string's first word as the language; an unclosed fence runs to the end), pipe tables (a header
 * row, a delimiter row, and the rows that follow while they hold a `|`), and images
 * (`![alt](src "title")`) outside code. Offsets are UTF-16 indices into the text as given (CRLF
 * kept), so every span slices the original markdown.
 */
export function markdownStructure(
  text: string,
  want: { headings?: boolean; tables?: boolean; code?: boolean; images?: boolean } = {},
  out: Structure = emptyStructure(),
): Structure {
  const { headings = true, tables = true, code = true, images = true } = want;
  const all = lines(text);
  const codeSpans: { start: number; end: number }[] = [];
  let i = 0;
  let paragraph: Line | undefined; // the line a setext underline would make a heading
  while (i < all.length) {
    const line = all[i]!;
    const fence = openingFence(line.text);
    if (fence) {
      let j = i + 1;
      while (j < all.length && !closesFence(all[j]!.text, fence)) j++;
      const span = { start: line.start, end: j < all.length ? all[j]!.end : text.length };
      codeSpans.push(span);
      if (code) out.code.push({ ...span, language: fence.language || null });
      i = j + 1;
      paragraph = undefined;
      continue;
    }
    const atx = atxHeading(line.text);
    if (atx) {
      if (headings) out.headings.push({ level: atx.level, text: atx.text.trim(), start: line.start, end: line.end });
      i++;
      paragraph = undefined;
      continue;
    }
    const next = all[i + 1];
    if (line.text.includes('|') && next && isDelimiterRow(next.text) && (line.text.includes('|') || next.text.includes('|'))) {
      let j = i + 2;
      while (j < all.length && !blank(all[j]!) && all[j]!.text.includes('|')) j++;
      if (tables) out.tables.push({ start: line.start, end: all[j - 1]!.end });
      i = j;
      paragraph = undefined;
      continue;
    }
    const underline = SETEXT.exec(line.text);
    if (underline && paragraph) {
      if (headings) out.headings.push({ level: underline[1]![0] === '=' ? 1 : 2, text: paragraph.text.trim(), start: paragraph.start, end: line.end });
      paragraph = undefined;
      i++;
      continue;
    }
    paragraph = blank(line) ? undefined : line;
    i++;
  }
  if (images) {
    let c = 0;
    for (const m of text.matchAll(IMAGE)) {
      const start = m.index!;
      while (c < codeSpans.length && codeSpans[c]!.end <= start) c++;
      if (c < codeSpans.length && codeSpans[c]!.start <= start) continue; // inside a code block
      out.images.push({ alt: m[1]!, src: m[2]!, start, end: start + m[0].length });
    }
  }
  return out;
}
