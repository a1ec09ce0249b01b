import { checkTextLength, type Extractor } from '../../kernel/index.js';
import { checkZip } from './zip-limits.js';

/**
 * DOCX → text with mammoth's raw-text mode: the text of each paragraph (headings and list items
 * are paragraphs too, without numbering or bullets), paragraphs separated by a blank line, table
 * cells as paragraphs. The zip is checked against the limits (zip-limits.ts) before mammoth
 * unpacks it.
 */
export const docx: Extractor = {
  format: 'docx',
  async extract(bytes, limits) {
    checkZip(bytes, limits);
    const { default: mammoth } = await import('mammoth');
    const { value } = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    // Not /\n+$/: that pattern retries each newline of a run that does not end the text (quadratic).
    let end = value.length;
    while (end > 0 && value.charCodeAt(end - 1) === 10) end--;
    const text = value.slice(0, end);
    checkTextLength(text.length, limits);
    return text;
  },
};
