import type { Static } from 'typebox';
import { emptyStructure } from '../../kernel/chef/document.js';
import type { ChefImpl } from '../../kernel/plugin.js';
import type { PdfConfig } from './index.js';
import { pdf } from './pdf.js';

export function create(_config: Static<typeof PdfConfig>): ChefImpl {
  return {
    async process(doc, { limits, signal }) {
      return { text: await pdf.extract(doc.bytes!, limits, signal), structure: emptyStructure(), metadata: {} };
    },
  };
}
