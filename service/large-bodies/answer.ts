/**
 * The main-thread side of a pooled request: a large raw body (server/middleware/body.ts) is moved
 * to a worker, which parses and checks it (service/large-bodies/job.ts, pipeline-job.ts) and answers
 * with the response bytes, or with the request's documents for the document runner
 * (kernel/engine/runner.ts) to spread over the pool or stream. Whatever the body holds and whatever the
 * Accept header, it is never parsed on this thread; only a body naming an uploaded file comes
 * back parsed, for its file to be resolved here.
 */
import { ChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/engine/index.js';
import type { Plugin } from '../../kernel/registry.js';
import type { Limits } from '../limits.js';
import type { RequestPayload } from './job.js';
import { limitsOf, type PooledPayload, type PooledResult, type Prepared } from './shared.js';
import { invalidJsonError } from '../../wire/strict-json.js';
import { moduleBeside } from '../../kernel/paths.js';

/** The job modules' URLs (a worker imports them; boot has the workers import them as they start). */
export const POOLED_JOB = moduleBeside(import.meta.url, './job');

/** What a pooled request comes back as: the answer's bytes, the documents to run, or a body naming a file (parsed). */
export type Pooled = { bytes: Uint8Array } | { prepared: Prepared } | { body: unknown };

/** A large body the route hands over: once here, the caller no longer holds it (it is moved to a worker). */
export interface RawRequest {
  body: Buffer;
  signal?: AbortSignal;
  /** Told the body's unknown keys, for the route to name in its answer (also when the body is refused). */
  onIgnored(keys: string[]): void;
}

/** A plugin route's large body, in a worker. */
export function pluginPooled(
  raw: RawRequest,
  plugin: Plugin,
  pool: WorkerPool,
  limits: Limits,
  mode: PooledPayload['mode'],
  documentInput: boolean,
): Promise<Pooled> {
  return runPooled(
    raw,
    pool,
    POOLED_JOB,
    (body) => ({ source: plugin.source, body, limits: limitsOf(limits), threads: pool.threads, mode, documentInput }) satisfies RequestPayload,
  );
}

/** Move the raw body to a worker running `module`, and read its answer: an error of the body or request is thrown as the inline route would. */
export async function runPooled(
  { body, signal, onIgnored }: RawRequest,
  pool: WorkerPool,
  module: string,
  payload: (body: Uint8Array) => PooledPayload,
): Promise<Pooled> {
  const result = await pool.job<PooledResult>(module, payload(body), [body.buffer as ArrayBuffer], signal);
  if ('invalidJson' in result) throw invalidJsonError(result.invalidJson);
  if ('file' in result) return { body: result.file };
  onIgnored(result.ignored);
  if ('error' in result) throw new ChunkdError(result.error.code, result.error.detail, result.error.headers);
  return result;
}
