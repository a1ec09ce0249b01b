import type { Context, Next } from 'koa';
import { ChunkdError } from '../kernel/errors.js';
import { didYouMean } from '../kernel/suggest.js';
import type { RouteDef } from './route.js';

/** ctx.state.route: the route a request was matched to, once, before anything else looks at its path. */
export const matchedRoute = (ctx: Context): RouteDef | undefined => (ctx.state as { route?: RouteDef }).route;

/** A route path segment: a literal, or a `:param` that takes one whole segment. */
type Segment = string | { param: string };

interface Pattern {
  route: RouteDef;
  method: string;
  segments: Segment[];
}

/**
 * The one canonical form of a path is the form a route declares, byte for byte: case-sensitive,
 * no trailing slash, no empty, `.` or `..` segment, no percent-encoding outside a parameter. A
 * request path spelled any other way matches nothing, so routing, authentication, body rules and
 * the request log all see one answer to "which route is this?": the one given here.
 *
 * A plain path is found by one Map lookup (nearly all traffic: POST /v1/chunk/<name>); a path with
 * parameters is matched segment by segment. A parameter's segment is percent-decoded after it
 * matched (an id is data, never a path), and a segment that does not decode matches nothing.
 */
export class RouteTable {
  private readonly exact = new Map<string, RouteDef>();
  private readonly patterns: Pattern[] = [];
  /** Every path pattern, for the 404's suggestion. */
  readonly paths: string[];

  constructor(routes: readonly RouteDef[]) {
    for (const route of routes) {
      const method = route.method.toUpperCase();
      if (!route.path.includes(':')) {
        const key = `${method} ${route.path}`;
        if (this.exact.has(key)) throw new Error(`Two routes declare ${key}.`);
        this.exact.set(key, route);
      } else {
        const segments = route.path.split('/').map((s): Segment => (s.startsWith(':') ? { param: s.slice(1) } : s));
        this.patterns.push({ route, method, segments });
      }
    }
    this.paths = [...new Set(routes.filter((r) => !r.hidden).map((r) => r.path))];
  }

  /** The route for this method and raw path (HEAD is served by GET), with its decoded parameters. */
  match(method: string, path: string): { route: RouteDef; params: Record<string, string> } | undefined {
    const as = method === 'HEAD' ? 'GET' : method;
    const route = this.exact.get(`${as} ${path}`);
    if (route) return { route, params: {} };
    if (this.patterns.length === 0) return undefined;
    const parts = path.split('/');
    for (const p of this.patterns) {
      if (p.method !== as) continue;
      const params = matchSegments(p.segments, parts);
      if (params) return { route: p.route, params };
    }
    return undefined;
  }

  /** The methods some route serves this path with (for a 405's Allow header). */
  allowed(path: string): string[] {
    return ['GET', 'POST', 'PUT', 'DELETE'].filter((m) => this.match(m, path));
  }
}

function matchSegments(segments: Segment[], parts: string[]): Record<string, string> | undefined {
  if (segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const s = segments[i]!;
    const part = parts[i]!;
    if (typeof s === 'string') {
      if (s !== part) return undefined;
      continue;
    }
    if (part === '' || part === '.' || part === '..') return undefined;
    try {
      params[s.param] = decodeURIComponent(part);
    } catch {
      return undefined;
    }
  }
  return params;
}

/**
 * First in the chain after the error layer: match the request to its route and keep it on
 * ctx.state.route (ctx.params too). An unmatched request goes on with no route: the auth layer
 * refuses it on a keyed server, and dispatch() answers it 404/405 without reading its body.
 */
export function resolveRoute(table: RouteTable) {
  // Not async: a pass-through that adds no promise of its own to every request.
  return (ctx: Context, next: Next) => {
    const found = table.match(ctx.method, ctx.path);
    if (found) {
      ctx.state.route = found.route;
      ctx.params = found.params;
    }
    return next();
  };
}

/** Last in the chain: the matched route's handler; no route → 404 naming the closest one, or 405 with Allow. */
export function dispatch(table: RouteTable) {
  // Not async: the handler's own promise is the layer's (Koa reads no value from it).
  return (ctx: Context): unknown => {
    const route = matchedRoute(ctx);
    if (route) return route.handler(ctx);
    const allowed = table.allowed(ctx.path);
    if (allowed.length) {
      throw new ChunkdError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}; use ${allowed.join(' or ')}.`, { Allow: allowed.join(', ') });
    }
    throw new ChunkdError('NOT_FOUND', `Unknown route '${ctx.path}'.${didYouMean(ctx.path, table.paths)} GET / lists every route.`);
  };
}
