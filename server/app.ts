import Koa from 'koa';
import Type from '#typebox';
import { runsJobs } from '../kernel/engine/index.js';
import { dispatch, resolveRoute, RouteTable } from './dispatch.js';
import { auth } from './middleware/auth.js';
import { cors, crossOriginWrites } from './middleware/cors.js';
import { deadline } from './middleware/deadline.js';
import { draining } from './middleware/draining.js';
import { requestBody } from './middleware/body.js';
import { withFileAlternative } from '../service/files/document-input.js';
import { documentInput } from './middleware/document-input.js';
import type { FileStore } from '../service/files/store.js';
import { errorMiddleware } from './middleware/errors.js';
import { requestLog } from './middleware/request-log.js';
import { securityHeaders } from './middleware/security-headers.js';
import { buildOpenApi } from './openapi.js';
import { responseExamples } from './openapi-examples.js';
import type { AppDeps, RouteDef, RouteModule } from './route.js';
import { COMPONENTS } from '../wire/responses.js';
import { VERSION } from '../service/version.js';
import { docsRoutes } from './routes/docs.js';
import { evaluateRoutes } from './routes/evaluate.js';
import { fileRoutes } from './routes/files.js';
import { metaRoutes, rootRoute } from './routes/meta.js';
import { jobRoutes } from './routes/jobs.js';
import { pipelineRoutes } from './routes/pipelines.js';
import { playgroundRoutes } from './routes/playground.js';
import { pluginRoutes } from './routes/plugins.js';
import { processRoutes } from './routes/process.js';
import { slugPipelineRoutes } from './routes/slug-pipelines.js';
import { storeRoutes } from './routes/stores.js';
import { settingText } from '../service/settings.js';

const version = VERSION;

/** Route modules, in the order their routes appear in the docs. */
export const ROUTE_MODULES: RouteModule[] = [
  metaRoutes,
  pluginRoutes,
  processRoutes,
  pipelineRoutes,
  slugPipelineRoutes,
  storeRoutes,
  jobRoutes,
  fileRoutes,
  evaluateRoutes,
  docsRoutes,
  playgroundRoutes,
];

export interface App {
  koa: Koa;
  routes: RouteDef[];
  /** The OpenAPI document, built once on first call. */
  openapi(): Promise<Record<string, unknown>>;
}

/** Build the Koa app once from the frozen registry: routes, validators and the OpenAPI document. */
export function createApp(deps: AppDeps, modules: RouteModule[] = ROUTE_MODULES): App {
  const routes = modules.flatMap((m) => m(deps));
  routes.unshift(...selfDescribingRoutes(routes, deps));
  for (const r of routes) if (r.documentInput && r.body) r.body = withFileAlternative(r.body); // documented; resolved by documentInput below
  // Built on first use; its response examples were recorded by `npm run docs` (server/openapi-examples.ts).
  let document: Promise<Record<string, unknown>> | undefined;
  const openapi = () => (document ??= responseExamples(routes).then((examples) => buildOpenApi(routes, version, COMPONENTS, examples)));
  const openapiRoute = routes.find((r) => r.path === '/openapi.json')!;
  openapiRoute.handler = async (ctx) => (ctx.body = await openapi());

  const koa = new Koa({ proxy: false });
  const { settings, logger } = deps;
  // Routing comes first: auth, the body rule and the request log all act on the route matched here.
  const table = new RouteTable(routes);
  koa.use(securityHeaders());
  koa.use(requestLog(logger));
  koa.use(cors(settings.corsOrigins, (path) => table.allowed(path)));
  koa.use(errorMiddleware(logger));
  koa.use(draining(() => deps.draining === true));
  koa.use(resolveRoute(table));
  koa.use(crossOriginWrites(settings.corsOrigins, settingText('corsOrigins')));
  if (settings.apiKeys.length) koa.use(auth(settings.apiKeys)); // an open server skips the layer
  koa.use(deadline(settings.requestTimeoutMs, settingText('requestTimeoutMs')));
  koa.use(requestBody(settings.maxBodyBytes, () => runsJobs(deps.executor)));
  koa.use(documentInput(() => deps.services.files));
  koa.use(dispatch(table));
  return { koa, routes, openapi };
}

export { pagesOf } from './routes/meta.js';

function selfDescribingRoutes(routes: RouteDef[], deps: AppDeps): RouteDef[] {
  const placeholder = () => {};
  return [
    rootRoute(deps.registry, version, () => routes),
    {
      method: 'get',
      path: '/openapi.json',
      summary: 'This OpenAPI 3.1 document.',
      tag: 'meta',
      public: true,
      responses: { 200: { description: 'OpenAPI document.', schema: Type.Object({}, { additionalProperties: true }) } },
      handler: placeholder,
    },
  ].filter((r) => !routes.some((x) => x.path === r.path)) as RouteDef[];
}
