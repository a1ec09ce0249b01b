import { checkTextLength, decodeHtml, overLimit, type ExtractLimits, type Extractor } from '../../kernel/index.js';
import { nestingDepth } from './html-depth.js';
import { cappedDataTable } from './html-tables.js';

/**
 * HTML → plain text with html-to-text (maintained, streaming-free but linear, used widely for
 * e-mail bodies). The text keeps the structure a chunker can cut on:
 * - blocks (paragraphs, headings, list, tables, divs) are separated by a blank line; headings are
 *   plain lines (not upper-cased, no markers);
 * - list items are lines starting `- ` (unordered, nested ones indented) or ` 1. ` (ordered);
 * - links keep their text only (the URL is dropped: it is noise for retrieval);
 * - tables are rows of cells aligned in columns, one row per line;
 * - script, style, noscript, template, head (title included), images, forms' inputs and
 *   hidden content are dropped; lines are never re-wrapped.
 */
export const html: Extractor = {
  format: 'html',
  async extract(bytes, limits) {
    return (await htmlDocument(bytes, limits)).text;
  },
};

/** Marks a heading's text in html-to-text's output (private-use characters, removed from the source first). */
const OPEN = '\uE000';
const CLOSE = '\uE001';

/** One heading of the converted text: its level and its span (UTF-16 offsets into the text). */
export interface HtmlHeading {
  level: number;
  text: string;
  start: number;
  end: number;
}

/**
 * The text, and where its headings (h1–h6) are in it: each heading's text is marked while
 * html-to-text lays it out, and the marks are taken out afterwards, so offsets are exact.
 */
export async function htmlDocument(bytes: Uint8Array, limits: ExtractLimits): Promise<{ text: string; headings: HtmlHeading[] }> {
  {
    // A mark in the page itself would be taken for one of ours.
    const source = decodeHtml(bytes).replace(/[\uE000\uE001]/g, '\uFFFD');
    if (nestingDepth(source, limits.maxHtmlDepth) > limits.maxHtmlDepth) throw overLimit('levels of nested elements', limits.maxHtmlDepth, 'maxHtmlDepth');
    const { convert } = await import('html-to-text');
    const text = convert(source, {
      wordwrap: false,
      formatters: { cappedDataTable: cappedDataTable(limits) as never, markedHeading: markedHeading() as never },
      limits: { maxDepth: limits.maxHtmlDepth, maxInputLength: Number.MAX_SAFE_INTEGER },
      selectors: [
        ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
          selector,
          format: 'markedHeading',
          options: { leadingLineBreaks: 2, trailingLineBreaks: 2 },
        })),
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
        { selector: 'table', format: 'cappedDataTable', options: { uppercaseHeaderCells: false } },
        { selector: 'ul', options: { itemPrefix: '- ' } },
        ...['noscript', 'template', 'input', 'select', 'button', 'svg', 'canvas', 'iframe', 'object', '[hidden]'].map((selector) => ({
          selector,
          format: 'skip',
        })),
      ],
    });
    return unmark(text, limits);
  }
}

interface Builder {
  openBlock(o: { leadingLineBreaks: number }): void;
  closeBlock(o: { trailingLineBreaks: number }): void;
  pushWordTransform(t: (word: string) => string): void;
  popWordTransform(): void;
}

/** Two private-use characters naming heading n (up to 6400² headings). */
const ID_BASE = 0xe100;
const ID_RANGE = 6400;
const idOf = (n: number) => String.fromCharCode(ID_BASE + (Math.floor(n / ID_RANGE) % ID_RANGE), ID_BASE + (n % ID_RANGE));

/**
 * html-to-text's heading layout (a block, not upper-cased), each word of the heading wrapped in
 * marks naming the heading and its level. Marking words (not the block) leaves the layout's
 * whitespace rules exactly as they were, so the text is the same as without marks.
 */
function markedHeading() {
  let count = 0;
  return (
    elem: { name: string; children: unknown[] },
    walk: (nodes: unknown[], b: Builder) => void,
    builder: Builder,
    options: { leadingLineBreaks?: number; trailingLineBreaks?: number },
  ): void => {
    const mark = `${OPEN}${elem.name.slice(1)}${idOf(count++)}`;
    builder.openBlock({ leadingLineBreaks: options.leadingLineBreaks || 2 });
    builder.pushWordTransform((word) => `${mark}${word}${CLOSE}`);
    walk(elem.children, builder);
    builder.popWordTransform();
    builder.closeBlock({ trailingLineBreaks: options.trailingLineBreaks || 2 });
  };
}

/** The text without the marks, and the headings they marked: from a heading's first word to its last. */
function unmark(marked: string, limits: ExtractLimits): { text: string; headings: HtmlHeading[] } {
  const byId = new Map<string, HtmlHeading>();
  let text = '';
  let at = 0;
  for (const m of marked.matchAll(/\uE000([1-6])([\uE100-\uF8FF]{2})([^\uE000\uE001]*)\uE001/g)) {
    text += marked.slice(at, m.index);
    at = m.index! + m[0].length;
    const start = text.length;
    text += m[3];
    const heading = byId.get(m[2]!);
    if (heading) heading.end = text.length;
    else byId.set(m[2]!, { level: Number(m[1]), text: '', start, end: text.length });
  }
  text += marked.slice(at);
  checkTextLength(text.length, limits);
  const headings = [...byId.values()].filter((h) => h.end > h.start).sort((a, b) => a.start - b.start);
  for (const h of headings) h.text = text.slice(h.start, h.end).replace(/\s+/g, ' ').trim();
  return { text, headings };
}
