/**
 * A write step's chunks as they cross from where the steps ran (a worker, or this thread) to the
 * store client on the calling thread: compact rows, the embeddings in one Float32Array that is
 * moved, not copied, and no JSON for the calling thread to parse.
 */
import { hash } from 'node:crypto';
import type { Chunk } from '../../chunk.js';
import { ChunkdError } from '../../errors.js';
export interface StoreRows {
  /** The chunks without their embeddings. */
  chunks: Chunk[];
  /** Every chunk's embedding, one after the other (`dimension` numbers each). */
  vectors: Float32Array;
  dimension: number;
  /** SHA-256 (hex) of the document's text. */
  digest: string;
}

/** A document's chunks as rows; every chunk must carry an embedding of one dimension (the recipe puts an embedding step before a write). */
export function storeRows(chunks: Chunk[], input: string | Chunk[]): StoreRows {
  const digest = hash('sha256', typeof input === 'string' ? input : JSON.stringify(input), 'hex');
  const dimension = chunks[0]?.embedding?.length ?? 0;
  const vectors = new Float32Array(chunks.length * dimension);
  const out: Chunk[] = [];
  for (const [i, { embedding, ...chunk }] of chunks.entries()) {
    if (!embedding || embedding.length !== dimension)
      throw new ChunkdError(
        'BAD_REQUEST',
        `Chunk ${i} has ${embedding ? `an embedding of ${embedding.length} numbers, not ${dimension}` : 'no embedding'}: a write step needs every chunk embedded by one model.`,
      );
    vectors.set(embedding, i * dimension);
    out.push(chunk);
  }
  return { chunks: out, vectors, dimension, digest };
}

/** The rows as chunks again (the Chunk contract's embedding is a plain array: one small copy per chunk). */
export const rowsOf = ({ chunks, vectors, dimension }: StoreRows): Chunk[] =>
  chunks.map((c, i) => ({ ...c, embedding: Array.from(vectors.subarray(i * dimension, (i + 1) * dimension)) }));
