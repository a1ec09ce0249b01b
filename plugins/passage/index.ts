import Type from 'typebox';
import { ChunkSizeField, defineChunker, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const PassageConfig = Type.Object({
  tokenizer: TokenizerField('cl100k_base'),
  chunk_size: ChunkSizeField(200),
  target: Type.Number({
    default: 0.5,
    exclusiveMinimum: 0,
    maximum: 1,
    description: 'Preferred chunk size as a fraction of chunk_size: chunks are cut so that their sizes stay as close to it as the boundaries allow (chunk_size stays the hard maximum).',
  }),
  context: Type.Union([Type.Literal('title'), Type.Literal('none')], {
    default: 'title',
    description: "'title': a chunk inside a section whose top-level heading (Markdown '# …' or MediaWiki '= … =') it does not contain gets that heading line as its context; 'none': no context.",
  }),
});

export default defineChunker({
  name: 'passage',
  summary: 'Chunks of balanced size cut at the strongest boundaries (headings, paragraphs, lines, sentences), with the section title as context.',
  extras: [],
  config: PassageConfig,
  examples: [{ text: '# Title\n\nFirst paragraph. It has two sentences.\n\nSecond paragraph, a little longer than the first one.', chunk_size: 16 }],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer),
});
