import type { Static } from 'typebox';
import { emptyStructure } from '../../kernel/chef/document.js';
import type { ChefImpl } from '../../kernel/plugin.js';
import { html } from './html.js';
import type { HtmlConfig } from './index.js';

export function create(_config: Static<typeof HtmlConfig>): ChefImpl {
  return {
    async process(doc, { limits, signal }) {
      const bytes = doc.bytes ?? new TextEncoder().encode(doc.text ?? '');
      return { text: await html.extract(bytes, limits, signal), structure: emptyStructure(), metadata: {} };
    },
  };
}
