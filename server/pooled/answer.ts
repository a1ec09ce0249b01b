/**
 * The main-thread side of a pooled chunk request: the raw body (server/middleware/body.ts) is
 * moved to a worker, which answers with the response bytes (server/pooled/job.ts); the event loop
 * does nothing in proportion to the body's size but copy bytes.
 */
import type { Context } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { Plugin } from '../../kernel/registry.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import type { Limits } from '../limits.js';
import type { GroupPayload, JobResult, RequestPayload } from './job.js';
import { invalidJsonError, limitsOf, sendJsonBytes } from './wire.js';

/** The job module's URL (a worker imports it; boot has the workers import it as they start). */
export const POOLED_JOB = new URL(`./job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/** Answer a plugin route's request from its raw body, as the inline route would. */
export async function answerPooled(ctx: Context, plugin: Plugin, pool: WorkerPool, limits: Limits): Promise<void> {
  const body = ctx.state.rawBody as Buffer;
  const signal = ctx.state.signal as AbortSignal | undefined;
  const payload: RequestPayload = { step: 'request', source: plugin.source, body, limits: limitsOf(limits), threads: pool.threads };
  ctx.state.rawBody = undefined; // moved: detached on this thread from here on
  const first = await pool.job<JobResult>(POOLED_JOB, payload, [body.buffer as ArrayBuffer], signal);
  if ('invalidJson' in first) throw invalidJsonError(first.invalidJson);
  setIgnoredKeys(ctx, first.ignored);
  if (!('groups' in first)) return sendJsonBytes(ctx, [answered(first)]);
  const { config, unit, returnType } = first;
  const parts = await Promise.all(
    first.groups.map((items) => pool.job<JobResult>(POOLED_JOB, { step: 'group', source: plugin.source, config, unit, returnType, items } satisfies GroupPayload, [items.buffer as ArrayBuffer], signal)),
  );
  sendJsonBytes(ctx, joinLists(parts.map(answered)));
}

function answered(result: JobResult): Uint8Array {
  if ('error' in result) throw new ChunkdError(result.error.code, result.error.detail, result.error.headers);
  if (!('bytes' in result)) throw new Error('A pooled chunk job gave no answer.');
  return result.bytes;
}

/** JSON lists `[a,b]` and `[c]` → the parts of `[a,b,c]` (what JSON.stringify gives for the whole batch), as views: nothing is copied. */
export function joinLists(lists: Uint8Array[]): Uint8Array[] {
  return lists.flatMap((l, i) => {
    const inner = l.subarray(i === 0 ? 0 : 1, i === lists.length - 1 ? l.length : l.length - 1);
    return i < lists.length - 1 ? [inner, COMMA] : [inner];
  });
}
const COMMA = new Uint8Array([0x2c]);
