/**
 * A document's result as bytes, made where the work ran (a worker's are moved back, never
 * copied): its chunks' (or texts') JSON exactly as JSON.stringify gives it, refused as soon as it
 * passes its cap; a processed document's wire JSON; a `vectors` recipe's embeddings; a `stored`
 * recipe's document as a store keeps it.
 */
import { isMainThread } from 'node:worker_threads';
import type { Chunk } from '../../chunk.js';
import { allSpans, codePointCount, type Processed } from '../../chef/document.js';
import { ChunkdError } from '../../errors.js';
import type { RunOptions, ExtractedDocument } from '../recipe.js';
import { toWire } from '../steps/process.js';
import { capError } from './caps.js';
import { isPlain, plainChunkJson, plainListBound, writePlainList } from './plain-json.js';
import { SLAB_MAX_BYTES, slabUtf8, slabWrite } from './utf8-slab.js';

const encoder = new TextEncoder();
/** A string's UTF-8 bytes: a worker's are moved to the calling thread, so they get an ArrayBuffer of their own; the main thread's never move (utf8-slab.ts). */
const utf8: (s: string) => Uint8Array = isMainThread ? slabUtf8 : (s) => encoder.encode(s);
const FLUSH_CHARS = 1 << 16;

/** A processed document as its wire JSON (offsets in the request's unit), refused once past the cap; its text alone is refused before any JSON is made. */
export function encodeDocument(doc: Processed, options: RunOptions, budget: { used: number }): Uint8Array {
  const room = options.cap.bytes - budget.used;
  // Every character of the text is at least a byte of JSON.
  if (doc.text.length > room) throw capError(options.cap, budget.used + doc.text.length, true);
  const bytes = utf8(JSON.stringify(toWire(doc, options.unit)));
  if (bytes.length > room) throw capError(options.cap, budget.used + bytes.length, false);
  return bytes;
}

/** A processed document as a store keeps it: its code points counted and its structure stringified here, where the chef ran, never on the event loop. */
export function storedDocument(doc: Processed): ExtractedDocument {
  const spans = allSpans(doc.structure).length;
  return {
    text: doc.text,
    metadata: doc.metadata,
    codePoints: doc.codePoints ?? codePointCount(doc.text),
    ...(spans ? { structureJson: encoder.encode(JSON.stringify(doc.structure)) } : {}),
    ...(doc.utf8From === undefined ? {} : { utf8From: doc.utf8From }),
  };
}

/** Every chunk's embedding, one after the other, as the bytes of one Float64Array (a `vectors` recipe): the very numbers a chunk's embedding holds. */
export function encodeVectors(chunks: Chunk[]): Uint8Array {
  const dimension = chunks[0]?.embedding?.length ?? 0;
  const out = new Float64Array(chunks.length * dimension);
  chunks.forEach((c, i) => {
    if (c.embedding?.length !== dimension)
      throw new ChunkdError('BAD_REQUEST', `Chunk ${i} has no embedding of ${dimension} numbers: a vectors recipe ends with an embedding step.`);
    out.set(c.embedding, i * dimension);
  });
  return new Uint8Array(out.buffer);
}

/** A document's chunks (or their texts) as JSON bytes, exactly as JSON.stringify gives them, refused as soon as they pass the cap. */
export function encodeList(chunks: Chunk[], { returnType, cap }: RunOptions, budget: { used: number }): Uint8Array {
  const texts = returnType === 'texts';
  const plain = !texts && isPlain(chunks);
  const room = cap.bytes - budget.used;
  if (isMainThread && (texts || plain)) {
    // A small answer on this thread: written straight into the slab's bytes, no string made (json-bytes.ts); it fits the cap by its bound.
    const bound = plainListBound(chunks, texts);
    if (bound <= SLAB_MAX_BYTES && bound <= room) return slabWrite(bound, (into, at) => writePlainList(into, at, chunks, texts));
  }
  const pieces: Uint8Array[] = [];
  let size = 0;
  let buffer = '[';
  const flush = () => {
    const b = utf8(buffer);
    buffer = '';
    size += b.length;
    pieces.push(b);
  };
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    buffer += (i ? ',' : '') + (texts ? JSON.stringify(c.text) : plain ? plainChunkJson(c) : JSON.stringify(c));
    if (buffer.length >= FLUSH_CHARS) flush();
    if (size + buffer.length > room) throw capError(cap, budget.used + size + buffer.length, true);
  }
  buffer += ']';
  flush();
  if (size > room) throw capError(cap, budget.used + size, false);
  if (pieces.length === 1) return pieces[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of pieces) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
