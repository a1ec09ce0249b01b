/**
 * What a plugin imports, and all it may import of the kernel: the contracts of the four kinds
 * (chunker, refinery, chef, handshake), shared config fields, errors, the tokenizer and embedding
 * services, the splitters and the recursive chunker, and what chefs share (decoding, limits,
 * structure). A plugin never imports another kernel file nor another plugin; shared code lives here.
 */

// Contracts and manifests.
export { defineChef, defineChunker, defineHandshake, defineRefinery, type ChefImpl, type ChunkContext, type ChunkerImpl, type RefineryImpl } from './plugin.js';
export {
  storeChunkId,
  type CollectionInfo,
  type DocumentInfo,
  type HandshakeImpl,
  type StoreHit,
  type StoreQuery,
  type StoreRow,
  type WriteMeta,
} from './handshake.js';
export { acceptedValues, matchesFilter, filtersMetadata, type FieldFilter, type FilterValue, type StoreFilter } from './store-filter.js';
export { Chunk, type Span, type SpanRef } from './chunk.js';
export {
  ChunkSizeField,
  DelimField,
  EMBEDDED_MODEL,
  EmbeddingModelField,
  IncludeDelimField,
  MAX_NAME_LENGTH,
  MinCharactersPerSentenceField,
  MinSentencesPerChunkField,
  TokenizerField,
} from './fields.js';
export { BPE_COST, checkOverlapStep, delimCost, EMBEDDING_COST, MAX_TOKEN_REPEATS, PARSER_COST, STRUCTURE_COST, tokenizerCost } from './cost.js';

// Errors, optional packages, names.
export { ChunkdError, configError, isChunkdError, validationError } from './errors.js';
export { requireExtra } from './extras.js';
export type { Extra } from './plugin.js';
export { host, settingOf, type Host } from './host.js';
export { settingName } from './caps.js';
export { closest, unknownNameMessage } from './suggest.js';

// Small shared tools.
export { assetDir } from './paths.js';
export { BoundedCache } from './bounded-cache.js';
export { KeyedQueue } from './keyed-queue.js';
export { fnv1a } from './fnv.js';
export { floorFraction } from './fraction.js';

// Model files (only under the model roots) and the operator's model map.
export { mappedModel } from './model-map.js';
export { hubCacheDir, MAX_JSON_BYTES, MAX_MODEL_BYTES, modelFile, readModelFile, resolveModelPath } from './model-files.js';

// The tokenizer service.
export {
  countSpan,
  spanCounter,
  type SpanCounter,
  loadHfTokenizer,
  loadTokenizer,
  tokensIn,
  upperBound,
  TOKENIZER_NAMES,
  type HfTokenizer,
  type Tokenizer,
} from './tokenizers/index.js';
export { tokenWindows } from './tokenizers/windows.js';

// The embedding service (onnxruntime-node is imported only when an ONNX model loads).
export {
  batches,
  chunkVector,
  cosine,
  hashedDirection,
  isApiName,
  findEmbedder,
  loadEmbedder,
  loadOnnxTokenModel,
  locateModelDir,
  normalize,
  ONNX_EXTRA,
  type Embedder,
  type HubNeeds,
  type OnnxTokenModel,
  type TokenVectors,
} from './embeddings/index.js';

// Splitting: sentences and delimiters, recipes, the recursive chunker.
export {
  createRecursive,
  groupEnds,
  loadRecipe,
  RecursiveConfig,
  recursiveChunker,
  sentenceSplitter,
  splitSentences,
  utf8LengthUpTo,
  type MergeRule,
  type Recipe,
  type Rule,
  type SentenceSpan,
  type SplitOptions,
  type Splitter,
} from './split/index.js';

// Chefs: decoding, the structure of a document, limits and their refusals.
export { decodeHtml, decodeUtf8, isUtf8Text, utf8TextStart } from './chef/decode.js';
export { emptyStructure, type Structure } from './chef/document.js';
export { cappedStructure } from './chef/structure-cap.js';
export { checkTextLength, overLimit } from './chef/errors.js';
export type { ExtractLimits } from './chef/limits.js';
export type { Extractor } from './chef/extractor.js';
export { markdownStructure } from './chef/markdown-structure.js';

// Search: fusing a text and a vector ranking, and the text a chunk is indexed by.
export { BM25, words } from './words.js';
export { DEFAULT_FUSION, fuse, fusionFor, FUSION_BY_MODEL, type FusedHit, type FusionRule, type Hit } from './fusion.js';
export { documentWords, indexText, type IndexableChunk, type IndexTextOptions } from './index-text.js';
export { DEFAULT_MODE, defaultModeFor, isSearchMode, MODE_BY_MODEL, modesOf, SEARCH_MODES, type SearchMode } from './search-mode.js';
