/**
 * Scanners for the markdown lines whose patterns backtracked: each reads a line once, left to
 * right or from its end, so a line of a million characters costs a million steps, never their
 * square. Each keeps the exact answer of the pattern it replaced (documented per function, and
 * checked against it on many short lines in test/chef-linear.test.ts).
 */

const isBlankChar = (c: string | undefined) => c === ' ' || c === '\t';
/** What `.` does not match (one character class: linear). */
const LINE_BREAK = /[\n\r\u2028\u2029]/g;
/** JavaScript's `\s`, for one character. */
const WHITESPACE = /\s/;

/** Up to three leading spaces (CommonMark's indentation of a block marker). */
function indent(line: string): number {
  let p = 0;
  while (p < 3 && line[p] === ' ') p++;
  return p;
}

/** The length of the run of `ch` at `from`. */
function run(line: string, from: number, ch: string): number {
  let p = from;
  while (line[p] === ch) p++;
  return p - from;
}

export interface Fence {
  mark: '`' | '~';
  length: number;
  /** The info string's first word ('' when none). */
  language: string;
}

/**
 * An opening code fence, as `/^ {0,3}(`{3,}|~{3,})[ \t]*([^\s`]*)[^`]*$/` read it: up to three
 * spaces, three or more backticks or tildes, and no backtick after them; the language is the first
 * run of characters that are neither whitespace nor a backtick, after spaces and tabs.
 */
export function openingFence(line: string): Fence | undefined {
  const p = indent(line);
  const mark = line[p];
  if (mark !== '`' && mark !== '~') return undefined;
  const length = run(line, p, mark);
  if (length < 3) return undefined;
  let q = p + length;
  if (line.indexOf('`', q) >= 0) return undefined;
  while (isBlankChar(line[q])) q++;
  const from = q;
  while (q < line.length && !WHITESPACE.test(line[q]!)) q++;
  return { mark, length, language: line.slice(from, q) };
}

/** Whether a line closes the fence: up to three spaces, at least as many of its marks, then only spaces and tabs. */
export function closesFence(line: string, fence: Fence): boolean {
  const p = indent(line);
  const length = run(line, p, fence.mark);
  if (length < fence.length) return false;
  for (let q = p + length; q < line.length; q++) if (!isBlankChar(line[q])) return false;
  return true;
}

/**
 * An ATX heading, as `/^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/` read it: one to six
 * `#` followed by the end of the line or a space or tab; the text runs from the first character
 * after those spaces to the shortest end that leaves only spaces and tabs, or spaces and tabs, a
 * run of `#` (the closing sequence) and spaces and tabs. `.` stops at a line break (U+2028 and
 * U+2029 too), so a line holding one is not a heading.
 */
export function atxHeading(line: string): { level: number; text: string } | undefined {
  const p = indent(line);
  const level = run(line, p, '#');
  if (level < 1 || level > 6) return undefined;
  const q = p + level;
  if (q === line.length) return { level, text: '' };
  if (!isBlankChar(line[q])) return undefined;
  LINE_BREAK.lastIndex = q;
  if (LINE_BREAK.test(line)) return undefined;
  let from = q;
  while (isBlankChar(line[from])) from++;
  let end = line.length;
  while (end > from && isBlankChar(line[end - 1])) end--;
  let hashes = end;
  while (hashes > from && line[hashes - 1] === '#') hashes--;
  let before = hashes;
  while (before > from && isBlankChar(line[before - 1])) before--;
  // A closing sequence needs a space or tab before it, after the text's first character.
  if (hashes < end && before < hashes) end = before;
  return { level, text: line.slice(from, end) };
}

/**
 * A table's delimiter row, as `/^ {0,3}\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/`
 * read it: cells of `-` (with an optional `:` at either end, spaces and tabs around) separated by
 * `|`, an optional `|` at each end, at most three spaces before a leading `|`.
 */
export function isDelimiterRow(line: string): boolean {
  let p = indent(line);
  if (line[p] === '|') p++;
  let cells = 0;
  while (true) {
    const bar = line.indexOf('|', p);
    const cellEnd = bar < 0 ? line.length : bar;
    if (isDelimiterCell(line, p, cellEnd)) cells++;
    else return bar < 0 && cells > 0 && onlyBlanks(line, p, cellEnd) && line[p - 1] === '|';
    if (bar < 0) return true;
    p = bar + 1;
  }
}

function onlyBlanks(line: string, from: number, to: number): boolean {
  for (let q = from; q < to; q++) if (!isBlankChar(line[q])) return false;
  return true;
}

/** `[ \t]*:?-+:?[ \t]*` over line[from, to). */
function isDelimiterCell(line: string, from: number, to: number): boolean {
  let a = from;
  let b = to;
  while (a < b && isBlankChar(line[a])) a++;
  while (b > a && isBlankChar(line[b - 1])) b--;
  if (line[a] === ':' && a < b) a++;
  if (b > a && line[b - 1] === ':') b--;
  if (a >= b) return false;
  for (let q = a; q < b; q++) if (line[q] !== '-') return false;
  return true;
}
