import Type from '#typebox';
import { defineChunker, RecursiveConfig, tokenizerCost, TokenizerField } from '../../kernel/index.js';

/** Field names and defaults follow what Chonkie's cloud clients send to /v1/chunk/slumber. */
export const SlumberConfig = Type.Object({
  tokenizer: TokenizerField('gpt2'),
  chunk_size: Type.Integer({
    default: 1024,
    minimum: 1,
    maximum: 32_768,
    description: 'Maximum tokens per chunk; also the most tokens of candidates shown to the LLM in one question.',
  }),
  recipe: RecursiveConfig.properties.recipe,
  lang: RecursiveConfig.properties.lang,
  candidate_size: Type.Integer({
    default: 128,
    minimum: 1,
    maximum: 8192,
    description:
      'Maximum tokens per candidate: the recursive chunker cuts the text into candidates this size (at most chunk_size), and the LLM chooses which candidates start a new chunk.',
  }),
  min_characters_per_chunk: RecursiveConfig.properties.min_characters_per_chunk,
});

export default defineChunker({
  name: 'slumber',
  summary:
    'An LLM chooses the split points: recursive candidates are shown in windows of chunk_size tokens to the OpenAI-compatible chat-completions server the operator configured, which names the first candidate of a new topic.',
  extras: [],
  config: SlumberConfig,
  examples: [
    {
      text: '# Tides\n\nThe moon pulls the oceans, and the water rises twice a day.\n\n# Bread\n\nFlour, water, salt and yeast make a simple loaf.',
      candidate_size: 16,
      chunk_size: 64,
    },
  ],
  network: true,
  cost: (config) => tokenizerCost(config.tokenizer),
  load: () => import('./impl.js'),
});
