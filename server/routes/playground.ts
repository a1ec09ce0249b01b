import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';
import { ROOT } from '../../kernel/paths.js';
import type { RouteDef, RouteModule } from '../route.js';

/** Where `npm run build` (tsup.config.ts) writes the bundle. */
export const PLAYGROUND_DIST = join(ROOT, 'dist', 'playground');

/** The page; its asset URLs carry the bundle's hash, so a browser never runs a cached script of another version. */
const page = (version: string) =>
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>chunkd — playground</title>' +
  `<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><link rel="stylesheet" href="/playground/app.css?v=${version}"></head>` +
  '<body><div id="app"><noscript>The playground needs JavaScript; the API itself is described at <a href="/docs">/docs</a>.</noscript></div>' +
  `<script src="/playground/app.js?v=${version}"></script></body></html>`;

interface Assets {
  js: string;
  css: string;
  /** A hash of both: the `v` query of their URLs in the page. */
  version: string;
}

const withVersion = ({ js, css }: { js: string; css: string }): Assets => ({
  js,
  css,
  version: createHash('sha256').update(js).update('\0').update(css).digest('hex').slice(0, 16),
});

/**
 * The built server serves the bundle the build wrote. A server run from the sources (tests,
 * `npm run dev`) bundles playground/ itself on the first request, in memory, so it always shows
 * the sources it runs and needs no build step; the bundler is a development dependency, which is
 * why it is imported only on that path.
 */
const fromSources = import.meta.url.endsWith('.ts');
let assets: Promise<Assets> | undefined;

function loadAssets(): Promise<Assets> {
  assets ??= (async () => {
    if (fromSources) {
      const { bundlePlayground } = await import('../../playground/build.js');
      return withVersion(await bundlePlayground());
    }
    try {
      const [js, css] = await Promise.all(['app.js', 'app.css'].map((f) => readFile(join(PLAYGROUND_DIST, f), 'utf8')));
      return withVersion({ js: js!, css: css! });
    } catch {
      throw new ChunkdError(
        'NOT_CONFIGURED',
        `The playground is not built (${PLAYGROUND_DIST} has no app.js or app.css): build the server with npm run build.`,
      );
    }
  })();
  // A failed build is retried on the next request rather than cached.
  assets.catch(() => (assets = undefined));
  return assets;
}

const asset = (key: 'js' | 'css', type: string) => async (ctx: Context) => {
  const assets = await loadAssets();
  ctx.type = type;
  // Cached only under the URL of this very bundle (the page's `?v=`); any other URL is checked every time.
  ctx.set('Cache-Control', !fromSources && ctx.query.v === assets.version ? 'public, max-age=31536000, immutable' : 'no-cache');
  ctx.body = assets[key];
};

/** The playground page (public like /docs: the page holds no data; its API calls carry the key). */
export const playgroundRoutes: RouteModule = () => {
  const route = (path: string, summary: string, handler: RouteDef['handler'], page?: string): RouteDef => ({
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
    route(
      '/playground',
      'Playground: chunk a text in the browser and see the chunks',
      async (ctx) => {
        const { version } = await loadAssets();
        ctx.type = 'text/html';
        ctx.set('Cache-Control', 'no-cache');
        ctx.body = page(version);
      },
      'playground',
    ),
    route('/playground/app.js', 'Playground script', asset('js', 'application/javascript')),
    route('/playground/app.css', 'Playground styles', asset('css', 'text/css')),
  ];
};
