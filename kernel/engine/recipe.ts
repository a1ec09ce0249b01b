/**
 * A recipe: the steps a document goes through (each a plugin and its validated config, run by the
 * plugin's kind), the offset unit and what the caller wants back; and the plain data a run of it
 * carries to wherever it is placed, and brings back.
 */
import type { Setting } from '../caps.js';
import type { ChunkToStore } from '../handshake.js';
import type { ExtractLimits } from '../chef/limits.js';
import type { ErrorCode, Issue, ChunkdError } from '../errors.js';
import type { OffsetUnit } from '../offsets.js';
import type { Plugin } from '../registry.js';
import type { StoreRows } from './steps/write.js';

export interface RunnerStep {
  plugin: Plugin;
  config: Record<string, unknown>;
  /**
   * A write step (a handshake plugin, the last step): where its chunks go. It lives on the calling
   * thread and is never sent to a worker: the steps before it run where the runner puts them, and
   * each document's chunks come back as compact rows for this to write (steps/write.ts).
   */
  target?: StoreTarget;
}

/**
 * What a caller wants of each document: `chunks` (their JSON), `texts` (the list of their texts),
 * `vectors` (every chunk's embedding, one Float64Array of them: the embeddings of texts), or
 * `stored` (a recipe that ends with a chef: the processed document as a store keeps it, its
 * structure as JSON bytes).
 */
export type ReturnType = 'chunks' | 'texts' | 'vectors' | 'stored';

export interface Recipe {
  steps: RunnerStep[];
  unit: OffsetUnit;
  returnType: ReturnType;
}

/** Where a write step's chunks go (the store service, bound to a connection and a collection by whoever built the recipe). */
export interface StoreTarget {
  /**
   * Write document `index` of the call (its chunks, each with its embedding), replacing what the
   * store held for it. `digest` is the SHA-256 of its text: its id when the caller names none.
   */
  write(index: number, digest: string, chunks: ChunkToStore[]): Promise<void>;
}

/** Whether a step is a write step: dispatched by its plugin's kind, as every step is. */
export const isWriteStep = (step: Pick<RunnerStep, 'plugin'>): boolean => step.plugin.kind === 'handshake';

/** Work per character through every step (kernel/cost.ts). */
export const recipeCost = (recipe: Pick<Recipe, 'steps'>): number => recipe.steps.reduce((n, s) => n + (isWriteStep(s) ? 0 : s.plugin.cost(s.config)), 0);

/** A cap on the bytes of JSON produced: per document, or over all the documents of one call. */
export interface Cap {
  bytes: number;
  setting: Setting;
  /** 'answer': over every document of the call (a JSON answer); 'document': each on its own. */
  over: 'answer' | 'document';
}

/** What a run needs besides the steps and documents: plain data, so a worker gets it too. */
export interface RunOptions {
  unit: OffsetUnit;
  returnType: ReturnType;
  cap: Cap;
  maxChunks: number;
  /** Mark each document's chunks with its index (`metadata.document`), the first document of the call being this one (a flat answer). */
  markFrom?: number;
  /** A chef step's limits, and the names the 413s give them. */
  chef: { limits: ExtractLimits; names?: Partial<Record<keyof ExtractLimits, string>> };
}

/** A processed document as a store keeps it (returnType `stored`): made where the chef ran. */
export interface ExtractedDocument {
  text: string;
  metadata: Record<string, unknown>;
  /** The structure's JSON (UTF-16 spans of the text); absent when it has no spans. */
  structureJson?: Uint8Array;
  /** The text's length in code points, counted where it was made. */
  codePoints: number;
  /** The text is the file's bytes decoded as UTF-8 from this index on (kernel/chef/document.ts Processed.utf8From). */
  utf8From?: number;
}

/** A result as it crosses threads: an error as data, a bug as its stack. */
export type WireResult =
  | { bytes: Uint8Array; rows?: StoreRows }
  | { stored: ExtractedDocument }
  | { error: { code: ErrorCode; detail: string | Issue[]; headers: Record<string, string> } }
  | { bug: unknown };

/** One document's result: its JSON (a list of chunks or texts; a `vectors` recipe's embeddings as Float64 bytes), or why it failed (`bug`: not the client's doing; log it). */
export type DocResult = { bytes: Uint8Array } | { error: ChunkdError } | { bug: unknown };
