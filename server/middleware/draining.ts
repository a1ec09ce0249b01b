import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';

/** While the server shuts down, requests that still arrive on open connections get a 503 and the connection closes. */
export function draining(isDraining: () => boolean) {
  // Not async: a pass-through that adds no promise of its own to every request.
  return (ctx: Context, next: Next) => {
    if (isDraining()) {
      ctx.set('Connection', 'close');
      throw new ChunkdError('UNAVAILABLE', 'The server is shutting down: retry on another instance or in a moment.', { 'Retry-After': '5' });
    }
    return next();
  };
}
