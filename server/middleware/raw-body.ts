import type { Context, Next } from 'koa';
import getRawBody from 'raw-body';

/** From this size on a body is handed to a worker unparsed (kernel/pool.ts' INLINE_MAX_CHARS, in bytes). */
export const RAW_BODY_MIN_BYTES = 64 * 1024;

/**
 * For the routes that can parse in a worker (`paths`), a large body is read as bytes into
 * ctx.state.rawBody and koa-bodyparser skips it: JSON.parse of megabytes, and the garbage of its
 * result, would stall the event loop. It is read the way koa-bodyparser reads it (raw-body, the
 * same limit and so the same 413 and 400 errors). Small, compressed or length-less bodies, and a
 * server without workers, take the usual path.
 */
export function rawLargeBody(paths: ReadonlySet<string>, limit: string, enabled: () => boolean) {
  return async (ctx: Context, next: Next) => {
    const length = Number(ctx.get('Content-Length'));
    const encoding = ctx.get('Content-Encoding') || 'identity';
    if (ctx.method === 'POST' && length >= RAW_BODY_MIN_BYTES && encoding === 'identity' && paths.has(ctx.path) && enabled()) {
      const body = await getRawBody(ctx.req, { length, limit });
      // Moved to the worker, so it must own its whole ArrayBuffer (a large Buffer does; checked anyway).
      ctx.state.rawBody = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? body : Buffer.from(new Uint8Array(body));
      (ctx as { disableBodyParser?: boolean }).disableBodyParser = true;
    }
    await next();
  };
}
