import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';

/**
 * A request that runs longer than `ms` is answered 504, and its signal (ctx.state.signal, passed
 * to the worker pool) is aborted so the work stops instead of running on unseen.
 */
export function deadline(ms: number, setting: string) {
  return async (ctx: Context, next: Next) => {
    const controller = new AbortController();
    ctx.state.signal = controller.signal;
    if (ms <= 0) return next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new ChunkdError('TIMEOUT', `The request took longer than ${ms / 1000} s and was abandoned: send less per request or raise ${setting}.`));
      }, ms);
    });
    try {
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
