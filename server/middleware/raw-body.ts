import createError from 'http-errors';
import type { Context, Next } from 'koa';
import type { IncomingMessage } from 'node:http';
import { INLINE_MAX_CHARS } from '../../kernel/pool.js';

/** From this size on a body is handed to a worker unparsed: the pool's own threshold, in bytes. */
export const RAW_BODY_MIN_BYTES = INLINE_MAX_CHARS;

/**
 * For the routes that can parse in a worker (`routeTakesRaw`), a large body is read as bytes into
 * ctx.state.rawBody and koa-bodyparser skips it: JSON.parse of megabytes, and the garbage of its
 * result, would stall the event loop. Small, compressed or length-less bodies, and a server
 * without workers, take the usual path.
 */
export function rawLargeBody(routeTakesRaw: (path: string) => boolean, limit: number, enabled: () => boolean) {
  return async (ctx: Context, next: Next) => {
    if (ctx.method !== 'POST') return next();
    const length = Number(ctx.get('Content-Length'));
    if (!(length >= RAW_BODY_MIN_BYTES) || (ctx.get('Content-Encoding') || 'identity') !== 'identity' || !routeTakesRaw(ctx.path) || !enabled()) return next();
    ctx.state.rawBody = await readBody(ctx.req, length, limit);
    (ctx as { disableBodyParser?: boolean }).disableBodyParser = true;
    return next();
  };
}

/**
 * The body's bytes, each network chunk copied into one buffer as it arrives (no block copy of the
 * whole body at the end). Failures are the errors koa-bodyparser's reader (raw-body) raises, so
 * they are answered alike: 413 over the limit, 400 when the client aborts or sends short.
 */
function readBody(req: IncomingMessage, length: number, limit: number): Promise<Buffer> {
  if (length > limit) return Promise.reject(createError(413, 'request entity too large', { expected: length, length, limit, type: 'entity.too.large' }));
  // Its own ArrayBuffer (never the shared pool): it is moved to a worker whole.
  const body = Buffer.allocUnsafeSlow(length);
  let received = 0;
  return new Promise((resolve, reject) => {
    const finish = (error?: Error) => {
      req.off('data', onData).off('end', onEnd).off('error', onError).off('aborted', onAborted).off('close', onAborted);
      if (error) {
        req.unpipe();
        req.pause();
        reject(error);
      } else {
        resolve(body);
      }
    };
    const onData = (chunk: Buffer) => {
      if (received + chunk.length > length) return finish(createError(400, 'request size did not match content length', { expected: length, length, received: received + chunk.length, type: 'request.size.invalid' }));
      body.set(chunk, received);
      received += chunk.length;
    };
    const onEnd = () =>
      finish(received === length ? undefined : createError(400, 'request size did not match content length', { expected: length, length, received, type: 'request.size.invalid' }));
    const onError = (e: Error) => finish(e);
    const onAborted = () => finish(createError(400, 'request aborted', { code: 'ECONNABORTED', expected: length, length, received, type: 'request.aborted' }));
    req.on('data', onData).on('end', onEnd).on('error', onError).on('aborted', onAborted).on('close', onAborted);
  });
}
