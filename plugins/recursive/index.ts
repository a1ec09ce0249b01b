import Type from 'typebox';
import { ChunkSizeField, defineChunker, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const RecursiveConfig = Type.Object({
  tokenizer: TokenizerField(),
  chunk_size: ChunkSizeField(),
  recipe: Type.String({
    default: 'default',
    minLength: 1,
    maxLength: 128,
    description: 'Rules to cut with: default, markdown, python, js, ts, go, rust, java, c, cpp, html, latex, or a recipe added with --recipes-dir.',
  }),
  lang: Type.String({
    default: 'en',
    minLength: 1,
    maxLength: 64,
    description: 'Language of the text, for the sentence rules of text recipes (en, de, fr, es, …, zh, ja, ko, hi, ar); code recipes accept any.',
  }),
  min_characters_per_chunk: Type.Integer({
    default: 24,
    minimum: 1,
    description: "Minimum piece length in UTF-8 bytes at every level (Chonkie's rule): a piece joins the one before it when either is shorter (a short first piece joins the next); 1: never.",
  }),
  min_characters_rule: Type.Union([Type.Literal('chonkie'), Type.Literal('forward')], {
    default: 'chonkie',
    description:
      "How short pieces merge. 'chonkie': as Chonkie (a run of short words can become one piece that is then cut inside a word by tokens). 'forward': short pieces gather into runs of at least the minimum, a short last run joins the piece before, so chunks end at word boundaries.",
  }),
  keep_blocks: Type.Boolean({
    default: false,
    description:
      'On a processed document (a process step, or a file by reference): keep each table and fenced code block that fits chunk_size whole, in a chunk of its own; the text between blocks is cut as usual. Off: Chonkie\'s chunks, unchanged. A text without structure is not affected.',
  }),
});

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
