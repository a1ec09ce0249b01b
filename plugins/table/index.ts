import Type from '#typebox';
import { defineChunker, MAX_NAME_LENGTH, tokenizerCost } from '../../kernel/index.js';

export const TableConfig = Type.Object({
  tokenizer: Type.String({
    default: 'character',
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description:
      "'row' (chunk_size counts data rows, as Chonkie's row mode) or the tokenizer that counts tokens: character, word, byte, gpt2, r50k_base, p50k_base, cl100k_base, o200k_base, or a Hugging Face tokenizer.json under the model roots (--models-dir, the Hugging Face cache).",
  }),
  chunk_size: Type.Integer({
    default: 2048,
    minimum: 1,
    maximum: 10_000_000,
    description:
      "Maximum tokens per chunk, the repeated header rows included (with tokenizer 'row': maximum data rows per chunk). A single row larger than this is a chunk of its own.",
  }),
});

export default defineChunker({
  name: 'table',
  summary:
    'Markdown and HTML tables cut into chunks of whole rows that fit chunk_size with their header; the header rows of a continued table come in context.',
  extras: [],
  config: TableConfig,
  examples: [
    { text: '| name | qty |\n|---|---|\n| apple | 3 |\n| pear | 5 |\n| plum | 7 |\n', chunk_size: 40 },
    {
      text: 'Stock:\n<table><tr><th>name</th><th>qty</th></tr><tr><td>apple</td><td>3</td></tr><tr><td>pear</td><td>5</td></tr></table>',
      tokenizer: 'row',
      chunk_size: 1,
    },
  ],
  load: () => import('./impl.js'),
  cost: (config) => (config.tokenizer === 'row' ? 1 : tokenizerCost(config.tokenizer)),
});
