import Type from '#typebox';
import { defineChunker } from '../../kernel/index.js';

/** Field names and defaults follow Chonkie's FastChunker (its library; its clients have no fast route). */
export const FastConfig = Type.Object({
  chunk_size: Type.Integer({
    default: 4096,
    minimum: 1,
    maximum: 16_777_216,
    description: 'Maximum UTF-8 bytes per chunk (exceeded only by forward_fallback, or by one character wider than the budget).',
  }),
  delimiters: Type.String({
    default: '\n.?',
    maxLength: 128,
    pattern: '^[\\u0000-\\u007f]*$',
    description:
      'ASCII characters to cut after (each character is one delimiter); a chunk ends at the last one inside the budget. For a multi-byte delimiter use pattern.',
  }),
  pattern: Type.String({
    default: '',
    maxLength: 64,
    description: 'A string (any characters, e.g. "▁" or "\\n\\n") to cut at instead of delimiters; empty: use delimiters.',
  }),
  prefix: Type.Boolean({ default: false, description: 'Put the delimiter or pattern at the start of the next chunk instead of the end of this one.' }),
  consecutive: Type.Boolean({
    default: false,
    description: 'Cut only at the start of a run of the same delimiter (or of repeated patterns), never inside the run.',
  }),
  forward_fallback: Type.Boolean({
    default: false,
    description: 'When the budget holds no delimiter, extend the chunk to the next one after it (or to the end) instead of cutting at the budget.',
  }),
});

export default defineChunker({
  name: 'fast',
  summary: "Chunks of at most chunk_size UTF-8 bytes, cut at the last delimiter inside the budget (Chonkie's FastChunker).",
  extras: [],
  config: FastConfig,
  examples: [
    { text: 'Hello. World. Test.', chunk_size: 10, delimiters: '.' },
    { text: 'Hello▁World▁Test', chunk_size: 15, pattern: '▁', prefix: true },
  ],
  load: () => import('./impl.js'),
});
