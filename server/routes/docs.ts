import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Context } from 'koa';
import type { RouteDef, RouteModule } from '../route.js';

const require = createRequire(import.meta.url);
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const redocBundle = join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js');

const SWAGGER_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
};

const page = (title: string, head: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title><meta name="viewport" content="width=device-width, initial-scale=1">${head}</head><body>${body}</body></html>`;

const SWAGGER_PAGE = page(
  'chunkd — API docs',
  '<link rel="stylesheet" href="/docs/assets/swagger-ui.css">',
  '<div id="swagger-ui"></div><script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/swagger-ui-standalone-preset.js"></script>' +
    '<script src="/docs/assets/init.js"></script>',
);

/** Swagger UI started from a file of its own, not an inline script: the Content-Security-Policy allows no inline script. */
const SWAGGER_INIT =
  'window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: "BaseLayout" });\n';

const REDOC_PAGE = page('chunkd — API reference', '', '<redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script>');

const sendFile = (ctx: Context, file: string, type: string) => {
  ctx.type = type;
  ctx.set('Cache-Control', 'public, max-age=86400');
  ctx.body = createReadStream(file);
};

const html = (body: string) => (ctx: Context) => {
  ctx.type = 'text/html';
  ctx.body = body;
};

/** Swagger UI and ReDoc served from the npm packages' own files: no CDN, works offline. */
export const docsRoutes: RouteModule = () => {
  const asset = (path: string, summary: string, handler: RouteDef['handler'], page?: string): RouteDef => ({
    method: 'get',
    path,
    summary,
    tag: 'docs',
    hidden: true,
    public: true,
    page,
    responses: { 200: { description: summary } },
    handler,
  });
  return [
    asset('/docs', 'Swagger UI', html(SWAGGER_PAGE), 'docs'),
    asset('/redoc', 'ReDoc', html(REDOC_PAGE), 'redoc'),
    asset('/redoc/redoc.standalone.js', 'ReDoc bundle', (ctx) => sendFile(ctx, redocBundle, 'application/javascript')),
    asset('/docs/assets/init.js', 'Swagger UI start-up', (ctx) => {
      ctx.type = 'application/javascript';
      ctx.body = SWAGGER_INIT;
    }),
    ...Object.entries(SWAGGER_ASSETS).map(([name, type]) => asset(`/docs/assets/${name}`, name, (ctx) => sendFile(ctx, join(swaggerDir, name), type))),
  ];
};
