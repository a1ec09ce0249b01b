import type { Context, Next } from 'koa';
import { performance } from 'node:perf_hooks';
import { ChunkdError } from '../../kernel/errors.js';

/** One request in flight: when it is due, how to answer it 504, and its signal once someone asks for it. */
interface Pending {
  due: number;
  expired: boolean;
  /** The 504 it was answered, once expired: also the signal's reason, for work that answers on its own (NDJSON streams). */
  error?: ChunkdError;
  controller?: AbortController;
  reject(e: ChunkdError): void;
}

const PENDING = Symbol('deadline');

/**
 * The request's signal, aborted when its deadline passes (a 504): made on first call, since an
 * AbortSignal is an EventTarget, several microseconds to make and collect, and most requests never
 * hand work to the pool. Undefined outside the deadline layer (a handler called on its own).
 */
export function requestSignal(ctx: Context): AbortSignal | undefined {
  const p = (ctx.state as { [PENDING]?: Pending })[PENDING];
  if (!p) return undefined;
  if (!p.controller) {
    p.controller = new AbortController();
    if (p.expired) p.controller.abort(p.error);
  }
  return p.controller.signal;
}

/**
 * A request that runs longer than `ms` is answered 504, and its signal (requestSignal, passed
 * to the worker pool) is aborted so the work stops instead of running on unseen.
 *
 * Every request passes here and most finish in microseconds, so the per-request cost is kept
 * small. All requests share one duration and so expire in arrival order: one timer, armed for the
 * oldest, serves them all (no timer per request). The AbortController is made only when a handler
 * reads the signal (work the pool takes): an AbortSignal is an EventTarget, several microseconds
 * to make and collect, more than the rest of this middleware.
 */
export function deadline(ms: number, setting: string) {
  const inFlight = new Set<Pending>(); // insertion order = expiry order
  let timer: NodeJS.Timeout | undefined;
  const message = `The request took longer than ${ms / 1000} s and was abandoned: send less per request or raise ${setting}.`;

  function sweep() {
    const now = performance.now();
    for (const p of inFlight) {
      if (p.due > now) break;
      inFlight.delete(p);
      p.expired = true;
      p.error = new ChunkdError('TIMEOUT', message);
      p.controller?.abort(p.error);
      p.reject(p.error);
    }
    arm(now);
  }
  function arm(now: number) {
    const oldest = inFlight.values().next().value;
    // Unref'd: an open request's socket keeps the process alive; a timer left for finished requests must not.
    timer = oldest ? setTimeout(sweep, Math.max(0, oldest.due - now)).unref() : undefined;
  }

  return (ctx: Context, next: Next): Promise<void> => {
    const pending: Pending = { due: 0, expired: false, reject: noop };
    (ctx.state as { [PENDING]?: Pending })[PENDING] = pending;
    if (ms <= 0) return next();
    const now = performance.now();
    pending.due = now + ms;
    inFlight.add(pending);
    if (!timer) arm(now);
    return new Promise<void>((resolve, reject) => {
      pending.reject = reject;
      next().then(
        () => {
          inFlight.delete(pending);
          resolve();
        },
        (e: unknown) => {
          inFlight.delete(pending);
          reject(e);
        },
      );
    });
  };
}

const noop = () => {};

/**
 * Checking steps may build plugins (slow ones load models). When that outlasts the request deadline
 * the client has had its 504: nothing may then be stored behind its back.
 */
export function checkNotAbandoned(ctx: Context): void {
  requestSignal(ctx)?.throwIfAborted();
}
