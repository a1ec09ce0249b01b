import Type, { type Static } from '#typebox';

/** The chunk object on the wire, in the key order clients see. Unset optional fields are omitted. */
export const Chunk = Type.Object(
  {
    id: Type.String({
      description:
        'Deterministic id derived from content and position: chnk_ + 32 hex digits mixing a 128-bit XXH3 hash of the whole input text with the chunk span (for a chunk a refinery received without an id: of the chunk text and its offsets).',
    }),
    text: Type.String({ description: 'The chunk text; equals input.slice(start_index, end_index) for chunkers.' }),
    start_index: Type.Integer({ minimum: 0, description: 'Start offset in the input (code points unless offset_unit says otherwise).' }),
    end_index: Type.Integer({ minimum: 0, description: 'End offset (exclusive) in the input.' }),
    token_count: Type.Integer({ minimum: 0, description: 'Number of tokens of the named tokenizer.' }),
    context: Type.Optional(
      Type.String({
        description:
          "Text that gives the chunk its meaning, for a retriever to read with it: added by the overlap refinery, a table's header rows (table chunker), or a section title and the surrounding text (passage chunker).",
      }),
    ),
    embedding: Type.Optional(
      Type.Array(Type.Number(), { description: 'Vector set by the embeddings refinery (or by a chunker that embeds as it cuts: late).' }),
    ),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Chunker-specific metadata.' })),
  },
  { additionalProperties: true },
);
export type Chunk = Static<typeof Chunk>;

/** What a refinery accepts: any chunker's output; the id may be absent when a client builds chunks itself. */
export const ChunkInput = Type.Object(
  {
    id: Type.Optional(Type.String()),
    text: Type.String(),
    start_index: Type.Integer({ minimum: 0 }),
    end_index: Type.Integer({ minimum: 0 }),
    token_count: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: true },
);

/** A span a chunker plugin returns: UTF-16 offsets into its input; the kernel derives text, id and units. */
export interface Span {
  start: number;
  end: number;
  tokenCount: number;
  /** Set by chunkers that embed as they cut (late chunking); the manifest then says `embeds: true`. */
  embedding?: number[];
  metadata?: Record<string, unknown>;
  /**
   * Another span of the input whose text the chunk carries in `context` (a table's header rows), or
   * several, whose texts `context` joins with a line break; `text` stays the exact slice.
   */
  context?: SpanRef | SpanRef[];
  /** Named spans of the input the chunk refers to: the kernel converts them to the request's unit and adds each to `metadata` as `{start_index, end_index}`. */
  refs?: Record<string, SpanRef>;
}

export interface SpanRef {
  start: number;
  end: number;
}

/** Wire key order (DESIGN.md §3); also used to re-order chunks a refinery extends. */
export const CHUNK_KEY_ORDER = ['id', 'text', 'start_index', 'end_index', 'token_count', 'context', 'embedding', 'metadata'] as const;

export function orderChunk(chunk: Record<string, unknown>): Chunk {
  const out: Record<string, unknown> = {};
  for (const key of CHUNK_KEY_ORDER) if (chunk[key] !== undefined) out[key] = chunk[key];
  for (const key of Object.keys(chunk)) if (!(key in out) && chunk[key] !== undefined) out[key] = chunk[key];
  return out as Chunk;
}
