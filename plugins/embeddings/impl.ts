import type { Static } from 'typebox';
import { batches, indexText, loadEmbedder, type Chunk, type RefineryImpl } from '../../kernel/index.js';
import type { EmbeddingsConfig } from './index.js';

/** Texts per provider call: bounds memory for local models and request size for APIs. */
const BATCH = 64;

/** Float32 values carry about 7 significant digits; more only lengthens the JSON. */
const round = (x: number) => Math.round(x * 1e8) / 1e8;

export async function create(config: Static<typeof EmbeddingsConfig>): Promise<RefineryImpl> {
  const embedder = await loadEmbedder(config.embedding_model);
  return {
    async refine(chunks: Chunk[]): Promise<Chunk[]> {
      const vectors: Float32Array[] = [];
      // A chunk's index text (its context, then its text: kernel/index-text.ts), what a store's
      // full-text index reads and chunkd eval embeds, so search, write and evaluation agree.
      for (const batch of batches(
        chunks.map((c) => indexText(c)),
        BATCH,
      ))
        vectors.push(...(await embedder.embed(batch)));
      return chunks.map((c, i) => ({ ...c, embedding: Array.from(vectors[i]!, round) }));
    },
  };
}
