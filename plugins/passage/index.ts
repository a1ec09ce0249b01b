import Type from '#typebox';
import { ChunkSizeField, defineChunker, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const PassageConfig = Type.Object({
  tokenizer: TokenizerField('cl100k_base'),
  chunk_size: ChunkSizeField(200),
  target: Type.Number({
    default: 0.5,
    exclusiveMinimum: 0,
    maximum: 1,
    description:
      'Preferred chunk size as a fraction of chunk_size: chunks are cut so that their sizes stay as close to it as the boundaries allow (chunk_size stays the hard maximum).',
  }),
  context: Type.Union([Type.Literal('title'), Type.Literal('window'), Type.Literal('none')], {
    default: 'title',
    description:
      "'title': a chunk inside a section whose top-level heading (Markdown '# …' or MediaWiki '= … =') it does not contain gets that heading line as its context; 'window': the chunk's context is the text from window tokens before it to window tokens after it (the chunk included), so that a retriever reading context and text finds it by its neighbours' words too; 'none': no context.",
  }),
  window: Type.Integer({
    default: 50,
    minimum: 1,
    description: "With context 'window': tokens of the text taken on each side of the chunk.",
  }),
  repeats: Type.Union([Type.Literal('keep'), Type.Literal('drop')], {
    default: 'keep',
    description:
      "'keep': the chunks tile the text; 'drop': a chunk whose text and context are the same as an earlier chunk's (a passage the text repeats word for word) is left out, so that copies do not fill a retriever's results.",
  }),
});

export default defineChunker({
  name: 'passage',
  summary: 'Chunks of balanced size cut at the strongest boundaries (headings, paragraphs, lines, sentences), with the section title as context.',
  extras: [],
  config: PassageConfig,
  examples: [
    { text: '# Title\n\nFirst paragraph. It has two sentences.\n\nSecond paragraph, a little longer than the first one.', chunk_size: 16 },
    { text: '# Notes\n\nA first line.\n\nA line between.\n\nThe last line.', chunk_size: 8, context: 'window', window: 4 },
  ],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer),
});
