import type { Static } from '#typebox';
import { cappedStructure, decodeUtf8, markdownStructure, utf8TextStart, type ChefImpl } from '../../kernel/index.js';
import type { MarkdownConfig } from './index.js';

/** The markdown unchanged as the text; its headings, tables, fenced code and images as spans of it. */
export function create(_config: Static<typeof MarkdownConfig>): ChefImpl {
  return {
    process(doc, { limits }) {
      const text = doc.text ?? decodeUtf8(doc.bytes ?? new Uint8Array());
      // Built capped: past maxStructureSpans a kind's spans are counted, not kept (kernel/chef/structure-cap.ts).
      const structure = markdownStructure(text, {}, cappedStructure(limits.maxStructureSpans));
      const metadata = {
        headings: structure.headings.length,
        tables: structure.tables.length,
        code_blocks: structure.code.length,
        images: structure.images.length,
      };
      // The text is the file's bytes decoded and nothing else: a store may write those bytes as they are.
      return doc.text === undefined && doc.bytes ? { text, structure, metadata, utf8From: utf8TextStart(doc.bytes) } : { text, structure, metadata };
    },
  };
}
