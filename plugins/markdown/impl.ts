import type { Static } from 'typebox';
import { decodeUtf8Yielding } from '../../kernel/chef/decode.js';
import { emptyStructure } from '../../kernel/chef/document.js';
import type { ChefImpl } from '../../kernel/plugin.js';
import type { MarkdownConfig } from './index.js';

export function create(_config: Static<typeof MarkdownConfig>): ChefImpl {
  return {
    // A file's bytes are decoded a slice per turn of the event loop (decode.ts): a 16 MiB upload never holds it.
    async process(doc, { signal }) {
      const text = doc.text ?? (await decodeUtf8Yielding(doc.bytes ?? new Uint8Array(), signal));
      return { text, structure: emptyStructure(), metadata: {} };
    },
  };
}
