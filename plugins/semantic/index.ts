import Type from '#typebox';
import {
  ChunkSizeField,
  defineChunker,
  DelimField,
  EmbeddingModelField,
  IncludeDelimField,
  MinCharactersPerSentenceField,
  MinSentencesPerChunkField,
  EMBEDDING_COST,
  delimCost,
} from '../../kernel/index.js';

export const SemanticConfig = Type.Object({
  embedding_model: EmbeddingModelField(),
  threshold: Type.Union([Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 1 }), Type.Literal('auto')], {
    default: 0.5,
    description:
      "In (0, 1). Split at similarity minima at or below this percentile of all minima; skip_window merges groups at least this similar. Lower → fewer, larger chunks. 'auto' (older Chonkie clients' default): searched per text, in steps of threshold_step, for a threshold at which every group holds min_chunk_size to chunk_size tokens.",
  }),
  chunk_size: ChunkSizeField(),
  similarity_window: Type.Integer({
    default: 3,
    minimum: 1,
    maximum: 64,
    description: 'Sentences in the window each next sentence is compared with; texts with no more sentences than this are one chunk.',
  }),
  min_sentences_per_chunk: MinSentencesPerChunkField('Fewest sentences between two semantic splits (the chunk_size cap may still cut a group shorter).'),
  min_characters_per_sentence: MinCharactersPerSentenceField(),
  min_chunk_size: Type.Integer({
    default: 2,
    minimum: 1,
    description:
      "With threshold 'auto': the fewest tokens a group may have while the threshold is searched (Chonkie's meaning; a numeric threshold does not use it).",
  }),
  threshold_step: Type.Number({
    default: 0.01,
    exclusiveMinimum: 0,
    maximum: 1,
    description: "With threshold 'auto': in (0, 1], how finely the threshold is searched (Chonkie's meaning; a numeric threshold does not use it).",
  }),
  delim: DelimField(),
  include_delim: IncludeDelimField(),
  skip_window: Type.Integer({
    default: 0,
    minimum: 0,
    maximum: 64,
    description: 'Groups a group may reach past to merge with a later, similar one (0: off). The groups between are absorbed, so chunks stay contiguous.',
  }),
  filter_window: Type.Integer({
    default: 5,
    minimum: 1,
    maximum: 99,
    description: 'Savitzky–Golay window (odd, above filter_polyorder) smoothing the similarity curve.',
  }),
  filter_polyorder: Type.Integer({
    default: 3,
    minimum: 0,
    maximum: 10,
    description: 'Degree of the Savitzky–Golay polynomial (below filter_window).',
  }),
  filter_tolerance: Type.Number({
    default: 0.2,
    exclusiveMinimum: 0,
    exclusiveMaximum: 1,
    description: 'In (0, 1). A minimum is where the smoothed slope is below this (per sentence) and the curve bends up.',
  }),
});

export default defineChunker({
  name: 'semantic',
  summary: 'Sentences grouped where the embedding similarity dips (Savitzky–Golay minima), capped at chunk_size tokens of the model.',
  extras: [],
  config: SemanticConfig,
  // Chonkie's TypeScript SemanticChunker (and older Python versions) name the fewest sentences per chunk min_sentences.
  aliases: { min_sentences: 'min_sentences_per_chunk' },
  examples: [
    {
      text: 'Knead the dough and let it rise. Bake the bread until golden. The telescope tracks distant galaxies. Astronomers measure the light of stars.',
      similarity_window: 1,
      filter_window: 3,
      filter_polyorder: 2,
    },
  ],
  load: () => import('./impl.js'),
  cost: (config) => EMBEDDING_COST * delimCost(config.delim) * Math.max(1, config.similarity_window / 8),
});
