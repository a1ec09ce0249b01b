import type { Context } from 'koa';
import type { TObject, TSchema } from '#typebox';
import type { AppDeps } from '../service/deps.js';

/** What route modules receive (declared with the services, which receive it too). */
export type { AppDeps };

export interface ResponseDef {
  description: string;
  schema?: TSchema;
  /** The schema of one line when the route also answers `application/x-ndjson` (server/stream/ndjson.ts). */
  ndjson?: TSchema;
  /** A real answer for the docs, recorded by `npm run docs` (server/openapi-examples.ts). */
  example?: () => unknown;
  /** Response headers worth documenting, by name. */
  headers?: Record<string, { description: string; schema: TSchema }>;
}

/**
 * One declaration per route: the Koa handler, the OpenAPI operation and the index page all come
 * from it, so docs cannot drift from what is served.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Koa-style path, e.g. /v1/pipelines/:id. */
  path: string;
  summary: string;
  tag: string;
  description?: string;
  body?: TSchema;
  /** Name of the body schema under components/schemas in the OpenAPI document. */
  bodyName?: string;
  examples?: Record<string, unknown>[];
  /** Query parameters, one property each: documented in OpenAPI and read by queryReader (server/query.ts). */
  query?: TObject;
  responses: Record<number, ResponseDef>;
  /** A large body may reach the handler unparsed, as ctx.state.rawBody, for a worker to parse (server/middleware/body.ts). */
  rawBody?: boolean;
  /** The largest body this route reads, in bytes, when it is below --max-body-bytes (larger → 413 before parsing). */
  maxBodyBytes?: number;
  /**
   * The body is read by the handler itself, as a stream and under its own limit (an upload, an
   * NDJSON job): the body rule leaves it alone, and OpenAPI documents it with this media type and
   * schema, beside the JSON `body` when the route declares one too.
   */
  streamedBody?: { mediaType: string; schema: TSchema };
  /**
   * The route takes `file: {type: "document", content: <name>}` instead of `text`: the named
   * upload's text is put in `text` before the handler runs (server/middleware/document-input.ts).
   */
  documentInput?: boolean;
  /** Served without an API key on a keyed server; every other route needs one (server/middleware/auth.ts). */
  public?: boolean;
  /** Left out of /openapi.json (docs assets). */
  hidden?: boolean;
  /** A page for a browser, by short name: listed under `pages` in GET / and in the start-up line. */
  page?: string;
  handler(ctx: Context): unknown | Promise<unknown>;
}

export type RouteModule = (deps: AppDeps) => RouteDef[];
