import type { Static } from '#typebox';
import { decodeUtf8, emptyStructure, utf8TextStart, type ChefImpl } from '../../kernel/index.js';
import type { TextConfig } from './index.js';

/** The text as it is: a file's bytes decoded as UTF-8 (a BOM dropped), a text unchanged. */
export function create(_config: Static<typeof TextConfig>): ChefImpl {
  return {
    process(doc) {
      if (doc.text !== undefined || !doc.bytes) return { text: doc.text ?? '', structure: emptyStructure(), metadata: {} };
      return { text: decodeUtf8(doc.bytes), structure: emptyStructure(), metadata: {}, utf8From: utf8TextStart(doc.bytes) };
    },
  };
}
