import type { Static } from '#typebox';
import { emptyStructure, type ChefImpl } from '../../kernel/index.js';
import { htmlDocument } from './html.js';
import type { HtmlConfig } from './index.js';

/** The page's text (html.ts), with its h1–h6 headings as spans of it. */
export function create(_config: Static<typeof HtmlConfig>): ChefImpl {
  return {
    async process(doc, { limits }) {
      const bytes = doc.bytes ?? new TextEncoder().encode(doc.text ?? '');
      const { text, headings } = await htmlDocument(bytes, limits);
      return { text, structure: { ...emptyStructure(), headings }, metadata: { headings: headings.length } };
    },
  };
}
