import type { Context, Next } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';

/**
 * CORS for browser clients: only the listed origins are echoed back (`*` allows any); with none
 * listed (the default) no page on another origin can read an answer. Preflight requests from
 * allowed origins are answered here, for a path some route declares (`methodsOf` gives the
 * methods it takes; none: the preflight goes on to the 404 like any request for an unknown path).
 */
export function cors(origins: readonly string[], methodsOf: (path: string) => string[]) {
  const any = origins.includes('*');
  // Not async: a pass-through that adds no promise of its own to every request.
  return (ctx: Context, next: Next) => {
    const origin = ctx.req.headers.origin; // not ctx.get: it lower-cases the name on every request
    if (origin && (any || origins.includes(origin))) {
      ctx.set('Access-Control-Allow-Origin', any ? '*' : origin);
      if (!any) ctx.vary('Origin');
      ctx.set('Access-Control-Expose-Headers', 'X-Request-Id, X-Chunkd-Ignored-Keys, X-Total-Count, Link, X-Chunkd-Omitted, X-Chunkd-Search-Mode');
      const methods = ctx.method === 'OPTIONS' && ctx.get('Access-Control-Request-Method') ? methodsOf(ctx.path) : [];
      if (methods.length) {
        ctx.set('Access-Control-Allow-Methods', [...methods, 'OPTIONS'].join(', '));
        ctx.set('Access-Control-Allow-Headers', ctx.get('Access-Control-Request-Headers') || 'Content-Type, Authorization');
        ctx.set('Access-Control-Max-Age', '600');
        ctx.status = 204;
        return Promise.resolve();
      }
    }
    return next();
  };
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * CORS alone does not stop a page from *sending*: a "simple" POST (Content-Type text/plain, no
 * preflight) reaches the server, and chunkd reads any body as JSON, so any page a user opens could
 * create or delete pipelines on a server it can reach. So a browser request that is not GET, HEAD
 * or OPTIONS is refused (403) unless it comes from the server's own origin or an allowed one.
 * Browsers send `Origin` on every such request; `Sec-Fetch-Site` covers one without it. Clients
 * that are not browsers send neither and are not affected. Chunk and refine routes are covered
 * too: they store nothing, but a page could still spend the server's CPU on every visitor's
 * behalf, and no page on a disallowed origin can use their answers anyway.
 */
export function crossOriginWrites(origins: readonly string[], setting: string) {
  const any = origins.includes('*');
  // Not async: a pass-through that adds no promise of its own to every request.
  return (ctx: Context, next: Next) => {
    if (any || SAFE.has(ctx.method)) return next();
    const origin = ctx.req.headers.origin ?? '';
    const site = ctx.req.headers['sec-fetch-site'] ?? '';
    const allowed = origin ? origins.includes(origin) || sameOrigin(origin, ctx.get('Host')) : site !== 'cross-site' && site !== 'same-site';
    if (allowed) return next();
    const from = origin ? `from ${JSON.stringify(origin)}` : `from another site (Sec-Fetch-Site: ${site})`;
    throw new ChunkdError(
      'FORBIDDEN',
      `A browser ${ctx.method} ${from} is refused: browsers may send POST, PUT and DELETE only from this server's own origin and the origins in ${setting}. Add the origin there, or call the API from a program rather than a web page.`,
    );
  };
}

/**
 * The page's origin names this very server (e.g. a page it serves itself). Compared by host and
 * port, not scheme: behind a proxy that ends TLS the page is https while chunkd hears http.
 */
function sameOrigin(origin: string, host: string): boolean {
  if (!host) return false;
  try {
    const page = new URL(origin);
    return page.host === new URL(`${page.protocol}//${host}`).host;
  } catch {
    return false; // `null` (sandboxed frames, file: pages) or garbage: not this server
  }
}
