/** What plugin authors import: contracts, shared fields, errors and the tokenizer service. */
export { Chunk, type Span, type SpanRef } from './chunk.js';
export { ChunkdError, configError, validationError } from './errors.js';
export { ChunkSizeField, DelimField, EMBEDDED_MODEL, EmbeddingModelField, IncludeDelimField, MAX_NAME_LENGTH, MinCharactersPerSentenceField, MinSentencesPerChunkField, TokenizerField } from './fields.js';
export { requireExtra } from './extras.js';
export { assetDir } from './paths.js';
export { BoundedCache } from './bounded-cache.js';
export { mappedModel } from './model-map.js';
export { hubCacheDir, MAX_JSON_BYTES, MAX_MODEL_BYTES, modelFile, readModelFile, resolveModelPath } from './model-files.js';
export { defineChef, defineChunker, defineHandshake, defineRefinery, type ChefImpl, type ChunkerImpl, type RefineryImpl } from './plugin.js';
export { storeChunkId, type CollectionInfo, type HandshakeImpl, type StoreHit, type StoreQuery, type StoreRow, type WriteMeta } from './handshake.js';
export { countSpan, spanCounter, type SpanCounter, loadHfTokenizer, loadTokenizer, tokensIn, upperBound, TOKENIZER_NAMES, type HfTokenizer, type Tokenizer } from './tokenizers/index.js';
export { tokenWindows } from './tokenizers/windows.js';
export { floorFraction } from './fraction.js';
export { groupEnds, sentenceSplitter, splitSentences, utf8LengthUpTo, type MergeRule, type SentenceSpan, type SplitOptions, type Splitter } from './split/index.js';
export { BPE_COST, checkOverlapStep, delimCost, EMBEDDING_COST, MAX_TOKEN_REPEATS, PARSER_COST, STRUCTURE_COST, tokenizerCost } from './cost.js';
export { DEFAULT_FUSION, fuse, fusionFor, FUSION_BY_MODEL, type FusedHit, type FusionRule, type Hit } from './fusion.js';
export { documentWords, indexText, type IndexableChunk, type IndexTextOptions } from './index-text.js';
