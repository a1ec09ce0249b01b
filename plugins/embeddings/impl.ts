import type { Static } from '#typebox';
import { batches, chunkVector, findEmbedder, indexText, type Chunk, type RefineryImpl } from '../../kernel/index.js';
import type { EmbeddingsConfig } from './index.js';

/** Texts per provider call: bounds memory for local models and request size for APIs. */
const BATCH = 64;

export async function create(config: Static<typeof EmbeddingsConfig>): Promise<RefineryImpl> {
  // The model is found now (an unknown one is this config's refusal) and read on the first refine:
  // a step checked where it is made (the event loop) never parses weights there.
  const load = await findEmbedder(config.embedding_model);
  return {
    async refine(chunks: Chunk[]): Promise<Chunk[]> {
      const embedder = await load();
      const out: Chunk[] = [];
      // A chunk's index text (its context, then its text: kernel/index-text.ts), what a store's
      // full-text index reads and chunkd eval embeds, so search, write and evaluation agree.
      // Each batch's vectors become the chunks' arrays at once: 100,000 chunks never hold both.
      // A text the model knows no word of (all zeros) gets its words' hashed direction: no chunk is stored without one.
      for (const batch of batches(chunks, BATCH)) {
        const texts = batch.map((c) => indexText(c));
        const vectors = await embedder.embed(texts);
        batch.forEach((c, i) => out.push({ ...c, embedding: chunkVector(vectors[i], texts[i]!, embedder.dimension) }));
      }
      return out;
    },
  };
}
