import type { Static } from '#typebox';
import { configError, createRecursive, isApiName, loadEmbedder, type ChunkerImpl } from '../../kernel/index.js';
import type { LateConfig } from './index.js';
import { poolSpans } from './pool.js';

/**
 * Chonkie's LateChunker: the recursive chunker cuts (counting with the embedding model's own
 * tokenizer), the model embeds the whole text once token by token, and each chunk gets the mean
 * of its tokens' vectors.
 */
export async function create(config: Static<typeof LateConfig>): Promise<ChunkerImpl> {
  // Said before loading: an API model would first ask for its key, which would not help.
  const embedder = isApiName(config.embedding_model) ? undefined : await loadEmbedder(config.embedding_model);
  const tokenVectors = embedder?.tokenVectors?.bind(embedder);
  if (!embedder || !tokenVectors) {
    throw configError(
      `Embedding model '${config.embedding_model}' gives one vector per text, not per token, so it cannot do late chunking. Use chunkd/glove-sif-100d (built in), a Model2Vec directory or an ONNX encoder directory; an API model works with the recursive chunker followed by the embeddings refinery.`,
    );
  }
  // The recursive chunker through its public factory, given the model's tokenizer file (a static or ONNX model's tokenizer is a tokenizer.json).
  const recursive = await createRecursive({
    tokenizer: embedder.tokenizer.name,
    chunk_size: config.chunk_size,
    recipe: config.recipe,
    lang: config.lang,
    min_characters_per_chunk: config.min_characters_per_chunk,
    min_characters_rule: 'chonkie',
  });
  return {
    async chunk(text) {
      const spans = await recursive.chunk(text);
      const embeddings = poolSpans(text, spans, await tokenVectors(text), embedder.dimension);
      return spans.map((s, i) => ({ ...s, embedding: embeddings[i]! }));
    },
  };
}
