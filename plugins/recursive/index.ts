import { defineChunker, RecursiveConfig, tokenizerCost } from '../../kernel/index.js';

export default defineChunker({
  name: 'recursive',
  summary: 'Cuts at paragraphs, then sentences, pauses, words and tokens (or a recipe’s levels) until every chunk fits chunk_size; chunks tile the input.',
  extras: [],
  config: RecursiveConfig,
  examples: [
    { text: 'Supercalifragilisticexpialidocious word', chunk_size: 10, min_characters_per_chunk: 1 },
    { text: '# Title\n\nIntro paragraph.\n\n## Part\n\nMore text here.', recipe: 'markdown', chunk_size: 32 },
  ],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer),
});
