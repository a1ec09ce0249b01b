import type { Static } from '#typebox';
import type { ProcessedDocument } from '../kernel/chef/document.js';
import type { Chunk } from './spans.js';

const KEY = 'chunkd.api_key';

/** The API key lives in this tab's sessionStorage only: gone when the tab closes, never in localStorage. */
export const apiKey = {
  get: (): string => sessionStorage.getItem(KEY) ?? '',
  set: (key: string) => (key ? sessionStorage.setItem(KEY, key) : sessionStorage.removeItem(KEY)),
};

export interface Issue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

/** An error answer of the API: its status, code and detail (a message or a list of issues). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string | Issue[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((i) => `${i.loc.slice(1).join('.')}: ${i.msg}`).join('; '));
  }
}

function headers(extra: Record<string, string> = {}): Record<string, string> {
  const key = apiKey.get();
  return { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...extra };
}

async function failure(res: Response): Promise<ApiError> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { detail?: string | Issue[]; code?: string };
    return new ApiError(res.status, body.code ?? String(res.status), body.detail ?? text);
  } catch {
    return new ApiError(res.status, String(res.status), text || res.statusText);
  }
}

export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await callWithHeaders<T>(method, path, body)).body;
}

/** As call, with the answer's headers (a search names the mode it ran in one). */
export async function callWithHeaders<T>(method: string, path: string, body?: unknown): Promise<{ body: T; headers: Headers }> {
  const res = await fetch(path, { method, headers: headers(), body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw await failure(res);
  return { body: (await res.json()) as T, headers: res.headers };
}

export interface PluginInfo {
  name: string;
  kind: string;
  route: string;
  summary: string;
  config: JsonSchema;
  available: boolean;
  missing: string[];
  /** A chef's inputs; `bytes_only`: it reads files only, so the page (which sends text) cannot use it. */
  reads?: { extensions: string[]; media_types: string[]; bytes_only: boolean };
}

/** The answer of POST /v1/process/{chef}: the document's text and spans of it (offsets in the request's unit). */
export type Processed = Static<typeof ProcessedDocument>;

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  anyOf?: JsonSchema[];
  const?: unknown;
  enum?: unknown[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

export interface Step {
  type: string;
  /** A process step's chef (Chonkie's chefs): its chunks carry their heading path. */
  chef?: string;
  chunker?: string;
  refinery?: string;
  /** A write step's store connection (its config names the collection). */
  store?: string;
  config: Record<string, unknown>;
}

export interface Pipeline {
  id: string;
  name: string;
  description: string | null;
  steps: Step[];
}

/** One document's outcome in a batch. */
export type DocResult = { chunks: Chunk[] } | { error: string };

/**
 * A batch of texts, one result per document as it finishes. Asks for NDJSON (`{total}` first, then
 * `{index, chunks}` or `{index, error}` per document); a server that answers plain JSON (a list of
 * lists) is read the same way, all at once, so the page works with either.
 */
export async function runBatch(
  path: string,
  body: Record<string, unknown>,
  onTotal: (n: number) => void,
  onDoc: (index: number, r: DocResult) => void,
  signal?: AbortSignal,
): Promise<void> {
  const res = await fetch(path, { method: 'POST', headers: headers({ accept: 'application/x-ndjson' }), body: JSON.stringify(body), signal });
  if (!res.ok) throw await failure(res);
  if (!(res.headers.get('content-type') ?? '').includes('ndjson') || !res.body) {
    const lists = (await res.json()) as Chunk[][];
    onTotal(lists.length);
    lists.forEach((chunks, i) => onDoc(i, { chunks }));
    return;
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  const line = (text: string) => {
    if (!text.trim()) return;
    const msg = JSON.parse(text) as { total?: number; index?: number; chunks?: Chunk[]; error?: unknown; detail?: unknown };
    if (typeof msg.total === 'number' && msg.index === undefined) onTotal(msg.total);
    else if (typeof msg.index === 'number') onDoc(msg.index, msg.chunks ? { chunks: msg.chunks } : { error: describe(msg.error ?? msg.detail) });
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    const lines = buffer.split('\n');
    buffer = lines.pop()!;
    lines.forEach(line);
  }
  line(buffer);
}

function describe(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error && typeof error === 'object' && 'detail' in error) return describe((error as { detail: unknown }).detail);
  if (Array.isArray(error)) return error.map((i: Issue) => i.msg).join('; ');
  return JSON.stringify(error);
}

/** A store connection of GET /v1/stores: its collections, or why they could not be listed. */
export interface StoreInfo {
  name: string;
  handshake: string;
  local?: boolean;
  /** The search modes its handshake serves. */
  modes: string[];
  collections: { name: string; count: number; model: string | null; dimension: number | null; default_mode: string | null }[];
  error?: string;
}

/** A hit of POST /v1/stores/{name}/search: a chunk of its document (`metadata.document`, named by `metadata.name` when it has a name) with its score and the document's metadata. */
export type StoreHit = Chunk & { score: number; metadata: { document: string; name?: string } & Record<string, unknown> };
