/** The optional package ONNX models need; declared by every plugin that loads embedding models. */
export const ONNX_EXTRA = {
  name: 'onnx',
  packages: ['onnxruntime-node'],
  reason: 'Runs ONNX sentence-encoder models (a model directory with model.onnx); the built-in and Model2Vec models do not need it.',
  required: false,
};
