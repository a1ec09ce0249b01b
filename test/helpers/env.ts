import assert from 'node:assert/strict';
import { isChunkdError } from '../../kernel/errors.js';
import './host.js';

/** Set environment variables (undefined: unset); the returned function restores them (for before/after hooks). */
export function setEnv(vars: Record<string, string | undefined>): () => void {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const put = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
    }
  };
  put(vars);
  return () => put(saved);
}

/** Run `fn` with environment variables set (undefined: unset), restoring them afterwards. */
export async function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const restore = setEnv(vars);
  try {
    return await fn();
  } finally {
    restore();
  }
}

/** `p` rejects with a chunkd error of this status whose detail matches `message`. */
export const rejectsWith = (p: Promise<unknown>, status: number, message: RegExp) =>
  assert.rejects(p, (e) => isChunkdError(e) && e.status === status && message.test(String(e.detail)));
