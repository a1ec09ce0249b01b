import Type from 'typebox';
import { defineRefinery, EMBEDDING_COST, EmbeddingModelField } from '../../kernel/index.js';
import { ONNX_EXTRA } from './extras.js';

export const EmbeddingsConfig = Type.Object({
  embedding_model: EmbeddingModelField(),
});

export default defineRefinery({
  name: 'embeddings',
  summary: 'Adds an embedding vector to every chunk.',
  extras: [ONNX_EXTRA],
  config: EmbeddingsConfig,
  examples: [{ embedding_model: 'chunkd/glove-sif-100d' }],
  load: () => import('./impl.js'),
  cost: () => EMBEDDING_COST,
});
