import Type from '#typebox';
import { defineChunker, EMBEDDING_COST, MAX_NAME_LENGTH } from '../../kernel/index.js';

/** Chonkie's library default: the smallest Chonky model. */
export const DEFAULT_MODEL = 'mirth/chonky_distilbert_base_uncased_1';

export const NeuralConfig = Type.Object({
  model: Type.String({
    default: DEFAULT_MODEL,
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description:
      'Token-classification model that marks where chunks end: a Hugging Face name (org/model) in the local cache, or a directory, holding model.onnx (or onnx/model.onnx), tokenizer.json and config.json with id2label.',
  }),
  min_characters_per_chunk: Type.Integer({
    default: 10,
    minimum: 0,
    description: 'A predicted split that starts fewer than this many characters after the previous one replaces it (as Chonkie does).',
  }),
});

export default defineChunker({
  name: 'neural',
  summary: 'Split points predicted by a token-classification model (Chonky), run with onnxruntime-node in overlapping windows; chunks tile the input.',
  extras: [{ name: 'onnx', packages: ['onnxruntime-node'], reason: 'Runs the ONNX token-classification model that predicts the split points.' }],
  config: NeuralConfig,
  // Chonkie's TypeScript NeuralChunker sends its model as embedding_model.
  aliases: { embedding_model: 'model' },
  examples: [
    { text: 'The meeting starts at nine. Bring the quarterly figures. After lunch we review the roadmap for next year.', min_characters_per_chunk: 10 },
  ],
  load: () => import('./impl.js'),
  cost: () => EMBEDDING_COST,
});
