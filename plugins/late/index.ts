import Type from '#typebox';
import { ChunkSizeField, defineChunker, EMBEDDED_MODEL, EMBEDDING_COST, MAX_NAME_LENGTH, ONNX_EXTRA, RecursiveConfig } from '../../kernel/index.js';

const { recipe, lang, min_characters_per_chunk } = RecursiveConfig.properties;

export const LateConfig = Type.Object({
  embedding_model: Type.String({
    default: EMBEDDED_MODEL,
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description:
      'Model whose token vectors are pooled: chunkd/glove-sif-100d (built in), a Model2Vec or ONNX model directory, or a Hugging Face name (org/model) from the local cache. Its tokenizer also counts chunk_size. API models give no token vectors.',
  }),
  chunk_size: ChunkSizeField(),
  recipe,
  lang,
  min_characters_per_chunk,
});

export default defineChunker({
  name: 'late',
  summary: 'Late chunking: recursive cuts, the whole text embedded once token by token, each chunk’s embedding the mean of its tokens’ vectors.',
  extras: [ONNX_EXTRA],
  embeds: true,
  config: LateConfig,
  examples: [
    { text: 'The river flooded the valley. Farmers moved their herds uphill. In spring the water receded and the fields were green again.', chunk_size: 12 },
  ],
  load: () => import('./impl.js'),
  cost: () => EMBEDDING_COST,
});
