import Type, { type Static, type TObject } from 'typebox';
import type { Chunk, Span } from './chunk.js';

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

/** How each kind of plugin is exposed: its route prefix and the request field holding its input. */
export const KINDS = {
  chunker: { route: 'chunk', input: 'text' },
  refinery: { route: 'refine', input: 'chunks' },
} as const;
export type Kind = keyof typeof KINDS;

/** The declarative half of a manifest: readable without running any plugin code. */
export const ManifestMeta = Type.Object({
  name: Type.String({ pattern: '^[a-z][a-z0-9_-]*$', description: 'Route segment and registry key.' }),
  kind: Type.Union([Type.Literal('chunker'), Type.Literal('refinery')]),
  summary: Type.String({ minLength: 1 }),
  extras: Type.Array(Extra),
  config: Type.Object({ type: Type.Literal('object'), properties: Type.Record(Type.String(), Type.Object({})) }),
});

/**
 * One per kernel call (a request, or a worker's share of a large batch), the same object for each
 * of its texts: a plugin that waits on a network service stops when `signal` aborts, and may key
 * per-request state (a budget of remote calls) to this object in a WeakMap.
 */
export interface ChunkContext {
  signal?: AbortSignal;
  /**
   * The most spans the caller can use (an output cap, kernel/runner.ts): a chunker may stop once
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

type Impl<K extends Kind> = K extends 'chunker' ? ChunkerImpl : RefineryImpl;

export interface ImplModule<C extends TObject, K extends Kind> {
  create(config: Static<C>): Impl<K> | Promise<Impl<K>>;
}

export interface Manifest<C extends TObject = TObject, K extends Kind = Kind> {
  name: string;
  kind: K;
  summary: string;
  extras: Extra[];
  config: C;
  /** A chunker that sets `embedding` on every chunk it returns (late chunking); others never do. */
  embeds?: boolean;
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
}

export type AnyManifest = Manifest<TObject, Kind>;

export function defineChunker<C extends TObject>(m: Omit<Manifest<C, 'chunker'>, 'kind'>): Manifest<C, 'chunker'> {
  return { ...m, kind: 'chunker' };
}

export function defineRefinery<C extends TObject>(m: Omit<Manifest<C, 'refinery'>, 'kind'>): Manifest<C, 'refinery'> {
  return { ...m, kind: 'refinery' };
}
