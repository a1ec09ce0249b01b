import type { Context, Next } from 'koa';

/**
 * CORS for browser clients: `*` allows every origin (the default, like the reference server);
 * otherwise only the listed origins are echoed back. Preflight requests are answered here.
 */
export function cors(origins: readonly string[]) {
  const any = origins.includes('*');
  // Not async: a pass-through that adds no promise of its own to every request.
  return (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    if (origin && (any || origins.includes(origin))) {
      ctx.set('Access-Control-Allow-Origin', any ? '*' : origin);
      if (!any) ctx.vary('Origin');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, X-Chunkd-Ignored-Keys');
      if (ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method')) {
        ctx.set('Access-Control-Allow-Methods', 'GET, POST, PUT, DELETE, OPTIONS');
        ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Content-Type, Authorization');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return Promise.resolve();
      }
    }
    return next();
  };
}
