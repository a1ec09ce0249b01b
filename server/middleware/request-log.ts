import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Context, Next } from 'koa';
import { matchedRoute } from '../dispatch.js';
import type { Logger } from '../../service/logger.js';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const CLIENT_ID = /^[\w.:-]{1,128}$/;

/**
 * One JSON log line per request: id, method, path, the route pattern it matched (server/dispatch.ts), status, duration. Never a body. A
 * client's X-Request-Id is kept when it is a plain token, else one is made; either way it is
 * returned, so a client can quote it.
 */
export function requestLog(logger: Logger) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    // Read and set on Node's own objects: Koa's get and set lower-case the name per call.
    const given = ctx.req.headers['x-request-id'];
    const id = typeof given === 'string' && CLIENT_ID.test(given) ? given : randomUUID();
    ctx.state.requestId = id;
    ctx.res.setHeader(REQUEST_ID_HEADER, id);
    try {
      await next();
    } finally {
      const ms = performance.now() - started;
      const route = matchedRoute(ctx)?.path ?? null;
      logger.log(ctx.status >= 500 ? 'error' : 'info', 'request', {
        id,
        method: ctx.method,
        path: ctx.path,
        route,
        status: ctx.status,
        duration_ms: Math.round(ms * 10) / 10,
      });
    }
  };
}
