import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from 'koa';
import { ChunkdError } from '../../kernel/errors.js';
import { ROOT } from '../../kernel/paths.js';
import type { RouteDef, RouteModule } from '../route.js';

/** Where `npm run build` (tsup.config.ts) writes the bundle. */
export const PLAYGROUND_DIST = join(ROOT, 'dist', 'playground');

const PAGE =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>chunkd — playground</title>' +
  '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><link rel="stylesheet" href="/playground/app.css"></head>' +
  '<body><div id="app"><noscript>The playground needs JavaScript; the API itself is described at <a href="/docs">/docs</a>.</noscript></div>' +
  '<script src="/playground/app.js"></script></body></html>';

interface Assets {
  js: string;
  css: string;
}

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
      return bundlePlayground();
    }
    try {
      const [js, css] = await Promise.all(['app.js', 'app.css'].map((f) => readFile(join(PLAYGROUND_DIST, f), 'utf8')));
      return { js: js!, css: css! };
    } catch {
      throw new ChunkdError('NOT_CONFIGURED', `The playground is not built (${PLAYGROUND_DIST} has no app.js or app.css): build the server with npm run build.`);
    }
  })();
  // A failed build is retried on the next request rather than cached.
  assets.catch(() => (assets = undefined));
  return assets;
}

const asset = (key: keyof Assets, type: string) => async (ctx: Context) => {
  const body = (await loadAssets())[key];
  ctx.type = type;
  ctx.set('Cache-Control', fromSources ? 'no-cache' : 'public, max-age=3600');
  ctx.body = body;
};

/** The playground page (public like /docs: the page holds no data; its API calls carry the key). */
export const playgroundRoutes: RouteModule = () => {
  const route = (path: string, summary: string, handler: RouteDef['handler'], page?: string): RouteDef => ({ method: 'get', path, summary, tag: 'docs', hidden: true, public: true, page, responses: { 200: { description: summary } }, handler });
  return [
    route(
      '/playground',
      'Playground: chunk a text in the browser and see the chunks',
      (ctx) => {
        ctx.type = 'text/html';
        ctx.body = PAGE;
      },
      'playground',
    ),
    route('/playground/app.js', 'Playground script', asset('js', 'application/javascript')),
    route('/playground/app.css', 'Playground styles', asset('css', 'text/css')),
  ];
};
