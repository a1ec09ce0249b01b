/**
 * The embedding service, beside the tokenizers: a model named by a request is loaded once and
 * shared, whatever serves it (the built-in static model, a Model2Vec or ONNX directory, an
 * OpenAI-compatible API). onnxruntime-node is an optional package: it is imported only when an
 * ONNX model is loaded, after requireExtra has found it installed (resolved, never imported, when
 * probing), so importing this module costs no optional package.
 */
export { findEmbedder, isApiName, loadEmbedder, locateModelDir, MODELS_DIR, type Embedder, type TokenVectors } from './embedder.js';
export { ONNX_EXTRA } from './onnx-extra.js';
export type { HubNeeds } from './providers/hub.js';
export { loadOnnxTokenModel, type OnnxTokenModel } from './providers/onnx-tokens.js';
export { batches, chunkVector, cosine, hashedDirection, normalize } from './vectors.js';
