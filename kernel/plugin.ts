import Type, { type Static, type TObject } from '#typebox';
import type { ChefDocument, Processed, Structure } from './chef/document.js';
import type { ExtractLimits } from './chef/limits.js';
import type { Chunk, Span } from './chunk.js';
import type { Capabilities, HandshakeImpl } from './handshake.js';

/** An optional npm package group a plugin needs, reported (never imported) when missing. */
export const Extra = Type.Object({
  name: Type.String({ description: 'Name of the extra (the optionalDependencies group).' }),
  packages: Type.Array(Type.String(), { minItems: 1, description: 'npm packages the extra consists of.' }),
  reason: Type.String({ description: 'What the plugin needs them for.' }),
  required: Type.Optional(
    Type.Boolean({
      description:
        'true (the default): the plugin cannot work without it and answers 501 until it is installed. false: only some configs need it; the implementation calls requireExtra() when one does.',
    }),
  ),
});
export type Extra = Static<typeof Extra>;

/**
 * How each kind of plugin is exposed: its route prefix and the request field holding its input.
 * A handshake (vector store) has no route of its own: requests reach it through the connections
 * the operator configured (--stores), never by naming the handshake.
 */
export const KINDS = {
  chunker: { route: 'chunk', input: 'text' },
  refinery: { route: 'refine', input: 'chunks' },
  chef: { route: 'process', input: 'text' },
  handshake: { route: null, input: null },
} as const;
export type Kind = keyof typeof KINDS;

/** The declarative half of a manifest: readable without running any plugin code. */
export const ManifestMeta = Type.Object({
  name: Type.String({ pattern: '^[a-z][a-z0-9_-]*$', description: 'Route segment and registry key.' }),
  kind: Type.Union([Type.Literal('chunker'), Type.Literal('refinery'), Type.Literal('chef'), Type.Literal('handshake')]),
  summary: Type.String({ minLength: 1 }),
  extras: Type.Array(Extra),
  aliases: Type.Optional(Type.Record(Type.String(), Type.String(), { description: 'Config fields clients send under another name: {alias: field}.' })),
  config: Type.Object({ type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Object({})) }),
  mediaTypes: Type.Optional(
    Type.Array(Type.String({ pattern: '^[a-z0-9.+-]+/([a-z0-9.+-]+|\\*)$' }), {
      description: 'Chefs: the media types they read (`text/*` matches any text type no chef names exactly).',
    }),
  ),
  extensions: Type.Optional(
    Type.Array(Type.String({ pattern: '^\\.[a-z0-9.+_-]+$' }), { description: 'Chefs: the file name extensions they read, lower case with the dot.' }),
  ),
  capabilities: Type.Optional(
    Type.Object({ vector: Type.Boolean(), text: Type.Boolean() }, { description: 'Handshakes: whether they search by vector, by text, or both.' }),
  ),
  maxDimensions: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Handshakes: the most numbers a vector they store may have; a longer one is refused (422) before the write.' }),
  ),
  collectionKey: Type.Optional(
    Type.String({
      pattern: '^[a-z][a-z0-9_]*$',
      description:
        "Handshakes: the field a flat write step names the collection under, as Chonkie's store_in(<handshake>, <field>=...) does (default collection_name).",
    }),
  ),
});

/**
 * One per kernel call (a request, or a worker's share of a large batch), the same object for each
 * of its texts: a plugin that waits on a network service stops when `signal` aborts, and may key
 * per-request state (a budget of remote calls) to this object in a WeakMap.
 */
export interface ChunkContext {
  signal?: AbortSignal;
  /**
   * The structure of the text, when it is a processed document (a chef's output): headings,
   * tables, code blocks, images and pages as UTF-16 spans of the text. A chunker may use it (keep
   * a table whole); the kernel adds the heading path and block kinds to each chunk's metadata.
   */
  structure?: Structure;
  /**
   * The most spans the caller can use (an output cap, kernel/engine/runner.ts): a chunker may stop once
   * it has more than this many, since the text is then refused whole. Ignoring it is always correct.
   */
  maxSpans?: number;
}

export interface ChunkerImpl {
  /** Split one non-blank text; offsets are UTF-16 indices into `text`. */
  chunk(text: string, context?: ChunkContext): Span[] | Promise<Span[]>;
}

export interface RefineryImpl {
  /** Enrich one list of chunks; return new objects, never mutate the input, never move offsets. */
  refine(chunks: Chunk[]): Chunk[] | Promise<Chunk[]>;
}

/** What a chef is given besides the document: the limits its work must stay within, and the deadline. */
export interface ChefContext {
  limits: ExtractLimits;
  signal?: AbortSignal;
}

export interface ChefImpl {
  /**
   * The document's text and structure. Offsets are UTF-16 indices into the returned text; a file
   * the format's library cannot read throws (the kernel answers 422 naming the format), a limit
   * passed throws overLimit (413).
   */
  process(doc: ChefDocument, context: ChefContext): Processed | Promise<Processed>;
}

type Impl<K extends Kind> = K extends 'chunker' ? ChunkerImpl : K extends 'refinery' ? RefineryImpl : K extends 'handshake' ? HandshakeImpl : ChefImpl;

export interface ImplModule<C extends TObject, K extends Kind> {
  create(config: Static<C>): Impl<K> | Promise<Impl<K>>;
}

export interface Manifest<C extends TObject = TObject, K extends Kind = Kind> {
  name: string;
  kind: K;
  summary: string;
  extras: Extra[];
  config: C;
  /** A plugin that sets `embedding` on every chunk it returns (the embeddings refinery, late chunking; its model is its `embedding_model`); others never do. */
  embeds?: boolean;
  /**
   * Config fields clients send under another name (`{alias: field}`), e.g. a client that names
   * neural's `model` `embedding_model`: the value moves to the field before validation, in a
   * request body and in a pipeline step alike; the field's own name wins when both are sent.
   */
  aliases?: Record<string, string>;
  /** Example request bodies for the docs (without the input field for refineries: they get chunks). */
  examples?: Record<string, unknown>[];
  /** The only place a plugin imports its implementation (and therefore any optional package). */
  load(): Promise<ImplModule<C, K>>;
  /**
   * Work per character of input for a validated config, relative to the token chunker counting
   * characters (1, the default). Decides whether a request may run on the event loop
   * (kernel/cost.ts): declare it when the plugin uses a model, BPE, a parser, or anything slower.
   */
  cost?(config: Static<C>): number;
  /**
   * The plugin waits on a network service: it gets the request's abort signal whatever the input
   * size (others get it only for work the pool may take), and its route documents 501 and 502.
   */
  network?: boolean;
  /** Chefs: the media types they read; `text/*` matches any text type that no chef names exactly. */
  mediaTypes?: string[];
  /** Chefs: the file name extensions they read (`.md`), lower case. */
  extensions?: string[];
  /**
   * Chefs: whether a file whose name and type no chef claims is one this chef reads (the text chef:
   * valid UTF-8 without NUL bytes). Cheap: it runs on the event loop for every such upload.
   */
  sniff?(bytes: Uint8Array): boolean;
  /**
   * Chefs: its parser may hold the thread for long, so it runs in the extraction worker
   * (heap-capped) when there are workers. `'files'`: only files do (decoding their bytes is the
   * long part); a text is read on the calling thread, not copied to a worker and back.
   */
  offLoop?: boolean | 'files';
  /** Chefs: it reads files only; a text sent to it is refused with a 422. */
  bytesOnly?: boolean;
  /** Handshakes: what they can search by. */
  capabilities?: Capabilities;
  /**
   * Handshakes: whether a connection with this (validated) config keeps its rows on this machine
   * (an embedded database under a local path), where another replica cannot reach them.
   */
  local?(config: Static<C>): boolean;
  /** Handshakes: the most dimensions a vector they store may have (pgvector's vector type: 16,000); a longer one is a 422 at the write step's check, never a failed write. */
  maxDimensions?: number;
  /**
   * Handshakes: the field a flat write step (`{"type": "write", "component": <handshake>, ...}`,
   * as Chonkie's clients send it) names the collection under, as that client's handshake does
   * (LanceDB: table_name). Unset: collection_name. Either is accepted on the way in.
   */
  collectionKey?: string;
  /**
   * Handshakes: the server's default store when the operator configures none (--stores unset):
   * the connection config of an embedded store kept in `dir`, a directory under the data directory.
   * One built-in handshake offers it (LanceDB); a store that needs a server cannot.
   */
  embeddedDefault?(dir: string): Partial<Static<C>>;
}

export type AnyManifest = Manifest<TObject, Kind>;

export function defineChunker<C extends TObject>(m: Omit<Manifest<C, 'chunker'>, 'kind'>): Manifest<C, 'chunker'> {
  return { ...m, kind: 'chunker' };
}

export function defineChef<C extends TObject>(m: Omit<Manifest<C, 'chef'>, 'kind'> & { mediaTypes: string[]; extensions: string[] }): Manifest<C, 'chef'> {
  return { ...m, kind: 'chef' };
}

export function defineRefinery<C extends TObject>(m: Omit<Manifest<C, 'refinery'>, 'kind'>): Manifest<C, 'refinery'> {
  return { ...m, kind: 'refinery' };
}

/**
 * A vector store. Its config is the connection (fields without a default are required in a
 * connection entry; secrets are marked `secret: true`); create() opens the connection.
 */
export function defineHandshake<C extends TObject>(m: Omit<Manifest<C, 'handshake'>, 'kind'> & { capabilities: Capabilities }): Manifest<C, 'handshake'> {
  return { ...m, kind: 'handshake' };
}
