import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';

/**
 * While the server shuts down, requests that still arrive on open connections get a 503, and
 * requests already running when it began are answered with `Connection: close`: either way the
 * client learns the connection is ending before it can send another request on it, rather than
 * meeting a reset (a broken pipe) when the server closes it.
 */
export function draining(isDraining: () => boolean) {
  const closing = (ctx: Context) => {
    if (isDraining()) ctx.set('Connection', 'close');
  };
  return (ctx: Context, next: Next) => {
    if (isDraining()) {
      ctx.set('Connection', 'close');
      throw new ChunkdError('UNAVAILABLE', 'The server is shutting down: retry on another instance or in a moment.', { 'Retry-After': '5' });
    }
    return next().then(
      () => closing(ctx),
      (e: unknown) => {
        closing(ctx); // the error middleware, further out, answers it and keeps the header
        throw e;
      },
    );
  };
}
