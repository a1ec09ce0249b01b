import Type from '#typebox';
import { defineRefinery, EMBEDDING_COST, EmbeddingModelField, ONNX_EXTRA } from '../../kernel/index.js';

export const EmbeddingsConfig = Type.Object({
  embedding_model: EmbeddingModelField(),
});

export default defineRefinery({
  name: 'embeddings',
  summary: 'Adds an embedding vector to every chunk.',
  extras: [ONNX_EXTRA],
  // Every chunk it returns carries an embedding: a write step after it needs no embedding step of its own.
  embeds: true,
  config: EmbeddingsConfig,
  examples: [{ embedding_model: 'chunkd/glove-sif-100d' }],
  load: () => import('./impl.js'),
  cost: () => EMBEDDING_COST,
});
