import Koa from 'koa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Type from 'typebox';
import { runsJobs } from '../kernel/pool.js';
import { ROOT } from '../kernel/paths.js';
import { dispatch, resolveRoute, RouteTable } from './dispatch.js';
import { auth } from './middleware/auth.js';
import { cors, crossOriginWrites } from './middleware/cors.js';
import { deadline } from './middleware/deadline.js';
import { draining } from './middleware/draining.js';
import { requestBody } from './middleware/body.js';
import { errorMiddleware } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { buildOpenApi } from './openapi.js';
import type { AppDeps, RouteDef, RouteModule } from './route.js';
import { COMPONENTS } from './schemas.js';
import { docsRoutes } from './routes/docs.js';
import { metaRoutes } from './routes/meta.js';
import { pipelineRoutes } from './routes/pipelines.js';
import { playgroundRoutes } from './routes/playground.js';
import { pluginRoutes } from './routes/plugins.js';

const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };

/** Route modules, in the order their routes appear in the docs. */
export const ROUTE_MODULES: RouteModule[] = [metaRoutes, pluginRoutes, pipelineRoutes, docsRoutes, playgroundRoutes];

export interface App {
  koa: Koa;
  routes: RouteDef[];
  openapi: Record<string, unknown>;
}

/** Build the Koa app once from the frozen registry: routes, validators and the OpenAPI document. */
export function createApp(deps: AppDeps, modules: RouteModule[] = ROUTE_MODULES): App {
  const routes = modules.flatMap((m) => m(deps));
  routes.unshift(...selfDescribingRoutes(routes));
  const openapi = buildOpenApi(routes, version, COMPONENTS);
  const index = routes.filter((r) => !r.hidden);
  const pages = pagesOf(routes);
  const openapiRoute = routes.find((r) => r.path === '/openapi.json')!;
  openapiRoute.handler = (ctx) => (ctx.body = openapi);
  routes.find((r) => r.path === '/')!.handler = (ctx) => {
    ctx.body = { name: 'chunkd', version, docs: '/docs', pages, routes: index.map((r) => ({ method: r.method.toUpperCase(), path: r.path, summary: r.summary })) };
  };

  const koa = new Koa({ proxy: false });
  const { settings, logger } = deps;
  // Routing comes first: auth, the body rule and the request log all act on the route matched here.
  const table = new RouteTable(routes);
  koa.use(requestLog(logger));
  koa.use(cors(settings.corsOrigins, (path) => table.allowed(path)));
  koa.use(errorMiddleware(logger));
  koa.use(draining(() => deps.draining === true));
  koa.use(resolveRoute(table));
  koa.use(crossOriginWrites(settings.corsOrigins, '--cors-origins (CHUNKD_CORS_ORIGINS)'));
  if (settings.apiKeys.length) koa.use(auth(settings.apiKeys)); // an open server skips the layer
  koa.use(deadline(settings.requestTimeoutMs, '--request-timeout-ms (CHUNKD_REQUEST_TIMEOUT_MS)'));
  koa.use(requestBody(settings.maxBodyBytes, () => runsJobs(deps.executor)));
  koa.use(dispatch(table));
  return { koa, routes, openapi };
}

/** The browser pages (docs, redoc, playground), by name, from the routes that declare one. */
export const pagesOf = (routes: RouteDef[]): Record<string, string> => Object.fromEntries(routes.filter((r) => r.page).map((r) => [r.page!, r.path]));

function selfDescribingRoutes(routes: RouteDef[]): RouteDef[] {
  const placeholder = () => {};
  return [
    { method: 'get', path: '/', summary: 'Index of the routes.', tag: 'meta', public: true, responses: { 200: { description: 'Name, version and routes.' } }, handler: placeholder },
    { method: 'get', path: '/openapi.json', summary: 'This OpenAPI 3.1 document.', tag: 'meta', public: true, responses: { 200: { description: 'OpenAPI document.', schema: Type.Object({}, { additionalProperties: true }) } }, handler: placeholder },
  ].filter((r) => !routes.some((x) => x.path === r.path)) as RouteDef[];
}
