import Type from '#typebox';

/** Most sentence delimiters in a list, and longest delimiter: the search checks each one at every match. */
export const MAX_DELIMITERS = 64;
export const MAX_DELIMITER_LENGTH = 64;
/** Longest tokenizer or model name (a name, or a path to a file or directory). */
export const MAX_NAME_LENGTH = 4096;

/**
 * Config fields several plugins share, declared once so a default never drifts between plugins
 * (nor between an endpoint and a pipeline step: both read the plugin's schema).
 */
export const TokenizerField = (fallback = 'character') =>
  Type.String({
    default: fallback,
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description:
      'Tokenizer that counts tokens: character, word, byte, gpt2, r50k_base, p50k_base, cl100k_base, o200k_base, or a Hugging Face tokenizer.json under the model roots (--models-dir, the Hugging Face cache).',
  });

export const ChunkSizeField = (fallback = 512) => Type.Integer({ default: fallback, minimum: 1, description: 'Maximum tokens per chunk.' });

const Delimiter = () => Type.String({ minLength: 1, maxLength: MAX_DELIMITER_LENGTH });

export const DelimField = () =>
  Type.Union([Delimiter(), Type.Array(Delimiter(), { minItems: 1, maxItems: MAX_DELIMITERS })], {
    default: ['\n', '. ', '! ', '? '],
    description: `Sentence delimiters: a string or a list of at most ${MAX_DELIMITERS} strings, each of 1 to ${MAX_DELIMITER_LENGTH} characters.`,
  });

export const MinCharactersPerSentenceField = () =>
  Type.Integer({
    default: 12,
    minimum: 0,
    description:
      "Minimum sentence length in UTF-8 bytes (Chonkie's rule): a sentence joins the one before it when either is shorter (a short first sentence joins the next). 0 or 1: never.",
  });

/** The default is shared; the description says what the minimum constrains in each chunker. */
export const MinSentencesPerChunkField = (description: string) => Type.Integer({ default: 1, minimum: 1, description });

export const IncludeDelimField = () =>
  Type.Union([Type.Literal('prev'), Type.Literal('next')], {
    default: 'prev',
    description: "Attach each delimiter to the sentence before it ('prev') or after it ('next').",
  });

/** Request fields every chunker route has besides its config. */
export const TextField = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'A text, or a list of texts (then the answer is one list of chunks per text, in order).',
  examples: ['First sentence. Second sentence.'],
});

export const OffsetUnitField = Type.Union([Type.Literal('codepoint'), Type.Literal('utf16'), Type.Literal('utf8')], {
  default: 'codepoint',
  description: 'Unit of start_index/end_index: Unicode code points (default), UTF-16 code units, or UTF-8 bytes.',
});

export const ReturnTypeField = Type.Union([Type.Literal('chunks'), Type.Literal('texts')], {
  default: 'chunks',
  description: "Accepted for compatibility with Chonkie's clients: 'texts' answers the chunk texts only.",
});

/** The embedded default embedding model (kernel/embeddings/models/glove-sif-100d), built by scripts/build-embedded-model.ts. */
export const EMBEDDED_MODEL = 'chunkd/glove-sif-100d';

export const EmbeddingModelField = (fallback = EMBEDDED_MODEL) =>
  Type.String({
    default: fallback,
    minLength: 1,
    maxLength: MAX_NAME_LENGTH,
    description:
      'Embedding model: chunkd/glove-sif-100d (built in), a Model2Vec or ONNX model directory under the model roots (--models-dir, the Hugging Face cache), a Hugging Face name (org/model) from the local cache, or an OpenAI-compatible API model (text-embedding-3-small, openai/<model>).',
  });
