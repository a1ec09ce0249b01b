/** What plugin authors import: contracts, shared fields, errors and the tokenizer service. */
export { Chunk, type Span } from './chunk.js';
export { ChunkdError, configError, validationError } from './errors.js';
export { ChunkSizeField, DelimField, IncludeDelimField, TokenizerField } from './fields.js';
export { requireExtra } from './extras.js';
export { assetDir } from './paths.js';
export { defineChunker, defineRefinery, type ChunkerImpl, type RefineryImpl } from './plugin.js';
export { countSpan, spanTokens, loadTokenizer, tokensIn, upperBound, TOKENIZER_NAMES, type Tokenizer } from './tokenizers/index.js';
export { tokenWindows } from './tokenizers/windows.js';
