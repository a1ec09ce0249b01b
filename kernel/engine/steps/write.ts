/**
 * A write step's chunks as they cross from where the steps ran (a worker, or this thread) to the
 * store client on the calling thread: compact rows, the embeddings in one Float32Array and the
 * chunks in one buffer of JSON lines, both moved, not copied, and read back a slice per turn of the
 * calling thread's event loop.
 */
import { hash } from 'node:crypto';
import { setImmediate as tick } from 'node:timers/promises';
import type { Chunk } from '../../chunk.js';
import { ChunkdError } from '../../errors.js';
import type { ChunkToStore } from '../../handshake.js';
export interface StoreRows {
  /**
   * The chunks without their embeddings, as UTF-8 JSON, one chunk a line: one buffer that is moved
   * (100,000 chunk objects would be copied on the calling thread's event loop in one go when the
   * worker's message arrives), read back a slice per turn (rowsOf).
   */
  chunks: Uint8Array;
  count: number;
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
  const out: string[] = [];
  for (const [i, { embedding, ...chunk }] of chunks.entries()) {
    if (!embedding || embedding.length !== dimension)
      throw new ChunkdError(
        'BAD_REQUEST',
        `Chunk ${i} has ${embedding ? `an embedding of ${embedding.length} numbers, not ${dimension}` : 'no embedding'}: a write step needs every chunk embedded by one model.`,
      );
    vectors.set(embedding, i * dimension);
    out.push(JSON.stringify(chunk));
  }
  // TextEncoder's array has a buffer of its own (Buffer.from may share a pool's), so it can be moved.
  return { chunks: new TextEncoder().encode(out.join('\n')), count: chunks.length, vectors, dimension, digest };
}

/** Chunks made between two turns of the event loop (a 100,000-chunk document never holds up other requests). */
const CHUNKS_PER_TURN = 500;

/**
 * The rows as chunks to store again, each embedding a view into `vectors` (no copy: a 100,000-chunk
 * document's vectors stay one buffer). Each line is decoded as it is read, a slice of lines per
 * turn: decoding a 100,000-chunk document's 17 MB of lines in one call held the event loop ~80 ms.
 * A newline byte is only ever a separator (JSON escapes it in a string; UTF-8 uses it for nothing else).
 */
export async function rowsOf({ chunks, count, vectors, dimension }: StoreRows): Promise<ChunkToStore[]> {
  const bytes = Buffer.from(chunks.buffer, chunks.byteOffset, chunks.byteLength);
  const out: ChunkToStore[] = [];
  for (let i = 0, at = 0; i < count; i++) {
    if (i > 0 && i % CHUNKS_PER_TURN === 0) await tick();
    const end = i === count - 1 ? bytes.length : bytes.indexOf(0x0a, at);
    // The parsed object itself, given its embedding: no second object a chunk (a large write's rows live through its write).
    const chunk = JSON.parse(bytes.toString('utf8', at, end)) as ChunkToStore;
    chunk.embedding = vectors.subarray(i * dimension, (i + 1) * dimension);
    out.push(chunk);
    at = end + 1;
  }
  return out;
}
