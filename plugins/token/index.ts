import Type from '#typebox';
import { ChunkSizeField, defineChunker, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const TokenConfig = Type.Object({
  tokenizer: TokenizerField(),
  chunk_size: ChunkSizeField(),
  chunk_overlap: Type.Number({
    default: 0,
    minimum: 0,
    description:
      'Tokens shared by consecutive chunks: a whole number below chunk_size, or a fraction in (0, 1) of chunk_size. It may repeat a token in at most 64 chunks (chunk_overlap ≤ chunk_size − chunk_size/64).',
  }),
});

export default defineChunker({
  name: 'token',
  summary: 'Fixed windows of tokens, with optional overlap.',
  extras: [],
  config: TokenConfig,
  examples: [{ text: 'abcdefghij', chunk_size: 4, chunk_overlap: 2 }],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer),
});
