import type { Static } from '#typebox';
import { emptyStructure, type ChefImpl } from '../../kernel/index.js';
import type { PdfConfig } from './index.js';
import { PAGE_SEPARATOR, pdf } from './pdf.js';

/** The PDF's text (pdf.ts), and each page as a span of it: page n runs between the (n−1)th and nth separator. */
export function create(_config: Static<typeof PdfConfig>): ChefImpl {
  return {
    async process(doc, { limits, signal }) {
      const text = await pdf.extract(doc.bytes!, limits, signal);
      const structure = emptyStructure();
      let start = 0;
      for (const page of text.split(PAGE_SEPARATOR)) {
        structure.pages.push({ number: structure.pages.length + 1, start, end: start + page.length });
        start += page.length + PAGE_SEPARATOR.length;
      }
      return { text, structure, metadata: { pages: structure.pages.length } };
    },
  };
}
