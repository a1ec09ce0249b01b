/**
 * Whether a store call failed because the store could not be reached (down, hanging, refusing
 * connections: worth waiting for) or because the store answered with an error (the same call will
 * fail the same way again), and the deadlines that keep one hanging store from holding anything up.
 */
import { unreachableReason } from '../storage/pg-pool.js';

/** A store call passed its deadline (--store-connect-timeout-ms, --store-query-timeout-ms). */
export class StoreTimeout extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(readonly ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

const UNDICI = /^UND_ERR_(CONNECT_TIMEOUT|HEADERS_TIMEOUT|BODY_TIMEOUT|SOCKET|CLOSED)$/;

/** Why the store could not be reached, in words safe for a client; undefined when it answered (an error of its own). */
export function storeUnreachable(e: unknown): string | undefined {
  for (let at = e, depth = 0; at && depth < 6; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof StoreTimeout) return `no answer within ${at.ms} ms`;
    const reason = unreachableReason(at);
    if (reason) return reason;
    const { code, message = '' } = at as { code?: string; message?: string };
    if (code === 'ECONNABORTED' || (code && UNDICI.test(code))) return 'connection lost';
    if (/fetch failed|socket hang up|network error|ECONNREFUSED|ETIMEDOUT|EHOSTUNREACH/i.test(message)) return 'the server cannot be reached';
  }
  return undefined;
}

/** `work`, or a StoreTimeout after `ms` (the work itself is left to end or fail on its own). */
export function deadline<T>(work: Promise<T>, ms: number): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return work;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    // Held, not unref'd: a store's native client may wait without a handle of its own (LanceDB's
    // calls do), and the process must not look idle while a store call is pending.
    timer = setTimeout(() => reject(new StoreTimeout(ms)), ms);
  });
  work.catch(() => {}); // a call abandoned at its deadline may still fail later: never unhandled
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** The store's own message, for a document a store keeps refusing: one line, no URL, bounded. */
export function storeReason(e: unknown, redact: (text: string) => string): string {
  const text = redact(String((e as Error)?.message ?? e))
    .replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, '[url]')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || 'no reason given';
}
