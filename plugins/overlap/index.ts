import Type from '#typebox';
import { defineRefinery, RecursiveConfig, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const OverlapConfig = Type.Object({
  tokenizer: TokenizerField(),
  context_size: Type.Union([Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }), Type.Integer({ minimum: 1 })], {
    default: 0.25,
    description:
      "Size of each context: a number below 1 is a fraction of the neighbour's token_count (floored; 0 tokens gives an empty context); a whole number of 1 or more is a token count.",
  }),
  mode: Type.Union([Type.Literal('token'), Type.Literal('recursive')], {
    default: 'token',
    description:
      "'token' cuts the context at an exact token boundary; 'recursive' takes whole pieces (paragraphs, then sentences, then words …) of the recipe, nearest first.",
  }),
  method: Type.Union([Type.Literal('suffix'), Type.Literal('prefix'), Type.Literal('justified')], {
    default: 'suffix',
    description: "'suffix' appends the start of the next chunk, 'prefix' prepends the end of the previous one, 'justified' does both.",
  }),
  // The recursive mode cuts with the recursive chunker's recipes: the same fields, declared once there.
  recipe: RecursiveConfig.properties.recipe,
  lang: RecursiveConfig.properties.lang,
  merge: Type.Boolean({
    default: true,
    description: 'true: the context goes into text and its tokens into token_count (and context holds it); false: only context is set.',
  }),
});

export default defineRefinery({
  name: 'overlap',
  summary: 'Adds context from the neighbouring chunks to each chunk.',
  extras: [],
  config: OverlapConfig,
  examples: [
    { context_size: 4, method: 'prefix' },
    { context_size: 0.5, method: 'justified', merge: false },
    { context_size: 6, mode: 'recursive', method: 'suffix' },
  ],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer),
});
