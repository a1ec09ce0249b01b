/** What both sides of a request whose large body is parsed in a worker share: its limits, errors as data, and answers as moved bytes. */
import type { ErrorCode, Issue } from '../../kernel/errors.js';
import { isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { split, inline, docBuffers } from '../../kernel/engine/index.js';
import { docWeight, recipeCost, utf16Doc, type Doc, type Recipe } from '../../kernel/engine/index.js';
import { runnerOf, type Limits } from '../limits.js';

/** The exact bytes Koa sends for a JSON body. */
export const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

export type ErrorData = { code: ErrorCode; detail: string | Issue[]; headers: Record<string, string> };

/** A ChunkdError as data, to cross the thread boundary; anything else is rethrown (a bug, reported by the pool). */
export function errorData(e: unknown): ErrorData {
  if (!isChunkdError(e)) throw e;
  return { code: e.code, detail: e.detail, headers: e.headers };
}

/** A job's answer with the buffers to move (not copy) to the main thread. */
export const moved = <T>(value: T, buffers: Uint8Array[] = []) => ({ value, transfer: buffers.map((b) => b.buffer as ArrayBuffer) });

/** Only the limits, from the settings: what a worker needs to check them. */
export const limitsOf = ({ maxTexts, maxTextChars, maxChunks, maxOutputBytes, maxDocumentOutputBytes, maxStructureSpans }: Limits): Limits => ({
  maxTexts,
  maxTextChars,
  maxChunks,
  maxOutputBytes,
  maxDocumentOutputBytes,
  maxStructureSpans,
});

/** What both pooled jobs (service/large-bodies/job.ts, pipeline-job.ts) are given. */
export interface PooledPayload {
  body: Uint8Array;
  limits: Limits;
  /** Worker threads of the pool: a batch worth spreading over them goes back to the main thread's runner. */
  threads: number;
  /** 'answer': the JSON answer, run in this worker when it fits one; 'documents': the documents back, for a stream. */
  mode: 'answer' | 'documents';
  /** The route takes `file` in place of `text` (service/files/document-input.ts). */
  documentInput: boolean;
}

/** A request parsed and checked in a worker, as documents for the main thread's runner. */
export interface Prepared {
  /** A plugin request's config (a pipeline's steps are known to the main thread). */
  config?: Record<string, unknown>;
  unit: OffsetUnit;
  returnType: 'chunks' | 'texts';
  /** The request held a list (of texts, or of lists of chunks): the answer is a list. */
  list: boolean;
  /** One flat list of every document's chunks (a slug run, service/pipelines/slug-run.ts). */
  flat?: boolean;
  /** A pipeline run's `document` (the ids its write step writes the documents under). */
  document?: string | string[];
  /** A pipeline run's `metadata` (the user's keys its write step stores on every row). */
  metadata?: Record<string, unknown>;
  docs: Doc[];
}

export type PooledResult =
  | { invalidJson: string }
  /** The body names an uploaded file: parsed here, its file resolved on the main thread (the file store lives there). */
  | { file: unknown }
  | { error: ErrorData; ignored: string[] }
  /** The JSON answer, serialized here. */
  | { bytes: Uint8Array; ignored: string[] }
  | { prepared: Prepared; ignored: string[] };

/** A parsed body with a `file` key. */
export const namesFile = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && 'file' in v;

/** The JSON answer, run in this worker, when one is wanted and the work fits one worker (or is to run `whole` here); else undefined. */
export async function answerHere(payload: PooledPayload, recipe: Recipe, docs: Doc[], list: boolean, ignored: string[], flat = false, whole = false) {
  if (payload.mode !== 'answer') return undefined;
  // A chef the main thread's runner puts in the extraction pool (under --max-extract-ms) never runs
  // here, where nothing would bound its time: the documents go back to that runner.
  if (recipe.steps[0]?.plugin.kind === 'chef' && recipe.steps[0].plugin.manifest.offLoop === true) return undefined;
  const groups = whole ? undefined : split(docs, docWeight, payload.threads, recipeCost(recipe));
  if (groups && groups.length > 1) return undefined;
  // The server's own chef limits (--max-structure-spans, --max-text-chars), as on the main thread.
  const parts = await runnerOf(inline, payload.limits).answer(recipe, docs, { list, flat });
  const bytes = concat(parts);
  return moved<PooledResult>({ bytes, ignored }, [bytes]);
}

/** The documents for the main thread as bytes, moved (never cloned, never parsed there): texts as UTF-16, lists of chunks as JSON. */
export function prepared(ready: Omit<Prepared, 'docs'>, docs: Doc[], ignored: string[]) {
  const out: Doc[] = docs.map((d) => (Array.isArray(d) ? { json: encode(d) } : typeof d === 'string' ? utf16Doc(d) : d));
  return { value: { prepared: { ...ready, docs: out }, ignored } as PooledResult, transfer: docBuffers(out) };
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
