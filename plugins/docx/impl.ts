import type { Static } from '#typebox';
import { emptyStructure, type ChefImpl } from '../../kernel/index.js';
import { docx } from './docx.js';
import type { DocxConfig } from './index.js';

export function create(_config: Static<typeof DocxConfig>): ChefImpl {
  return {
    async process(doc, { limits, signal }) {
      return { text: await docx.extract(doc.bytes!, limits, signal), structure: emptyStructure(), metadata: {} };
    },
  };
}
