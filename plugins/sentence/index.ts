import Type from '#typebox';
import {
  ChunkSizeField,
  defineChunker,
  delimCost,
  DelimField,
  IncludeDelimField,
  MinCharactersPerSentenceField,
  MinSentencesPerChunkField,
  TokenizerField,
  tokenizerCost,
} from '../../kernel/index.js';

export const SentenceConfig = Type.Object({
  tokenizer: TokenizerField(),
  chunk_size: ChunkSizeField(),
  chunk_overlap: Type.Integer({
    default: 0,
    minimum: 0,
    description:
      'Tokens of whole sentences repeated at the start of the next chunk (below chunk_size; at most chunk_size − chunk_size/64, so no token is repeated in more than 64 chunks).',
  }),
  min_sentences_per_chunk: MinSentencesPerChunkField('Fewest sentences in a chunk (the last chunk may hold fewer).'),
  min_characters_per_sentence: MinCharactersPerSentenceField(),
  approximate: Type.Boolean({
    default: false,
    description:
      'Accepted for compatibility. true counts tokens from one encoding of the whole text (faster with BPE tokenizers, counts may be off by one at sentence edges).',
  }),
  delim: DelimField(),
  include_delim: IncludeDelimField(),
});

export default defineChunker({
  name: 'sentence',
  summary: 'Whole sentences packed into chunks of at most chunk_size tokens, with optional sentence overlap.',
  extras: [],
  config: SentenceConfig,
  examples: [{ text: 'First sentence. Second sentence. Third sentence.', chunk_size: 20 }],
  load: () => import('./impl.js'),
  cost: (config) => tokenizerCost(config.tokenizer) * delimCost(config.delim),
});
