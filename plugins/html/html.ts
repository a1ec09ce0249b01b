import type { Extractor } from '../../kernel/chef/extractor.js';
import { decodeHtml } from '../../kernel/chef/decode.js';
import { checkTextLength, overLimit } from '../../kernel/chef/errors.js';
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
  extensions: ['.html', '.htm', '.xhtml'],
  mimeTypes: ['text/html', 'application/xhtml+xml'],
  extra: { name: 'html', packages: ['html-to-text'], reason: 'Turns HTML into plain text: blocks, lists and tables kept as lines, scripts and styles dropped.' },
  offLoop: true,
  async extract(bytes, limits) {
    const source = decodeHtml(bytes);
    if (nestingDepth(source, limits.maxHtmlDepth) > limits.maxHtmlDepth) throw overLimit('levels of nested elements', limits.maxHtmlDepth, 'maxHtmlDepth');
    const { convert } = await import('html-to-text');
    const text = convert(source, {
      wordwrap: false,
      formatters: { cappedDataTable: cappedDataTable(limits) as never },
      limits: { maxDepth: limits.maxHtmlDepth, maxInputLength: Number.MAX_SAFE_INTEGER },
      selectors: [
        ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({ selector, options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 } })),
        { selector: 'a', options: { ignoreHref: true } },
        { selector: 'img', format: 'skip' },
        { selector: 'table', format: 'cappedDataTable', options: { uppercaseHeaderCells: false } },
        { selector: 'ul', options: { itemPrefix: '- ' } },
        ...['noscript', 'template', 'input', 'select', 'button', 'svg', 'canvas', 'iframe', 'object', '[hidden]'].map((selector) => ({ selector, format: 'skip' })),
      ],
    });
    checkTextLength(text.length, limits);
    return text;
  },
};
