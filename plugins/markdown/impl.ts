import type { Static } from 'typebox';
import { decodeUtf8 } from '../../kernel/chef/decode.js';
import { emptyStructure } from '../../kernel/chef/document.js';
import type { ChefImpl } from '../../kernel/plugin.js';
import type { MarkdownConfig } from './index.js';

export function create(_config: Static<typeof MarkdownConfig>): ChefImpl {
  return {
    process(doc) {
      const text = doc.text ?? decodeUtf8(doc.bytes ?? new Uint8Array());
      return { text, structure: emptyStructure(), metadata: {} };
    },
  };
}
