import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The playground's own folder: sources here, bundle written by `npm run build` to dist/playground. */
const HERE = dirname(fileURLToPath(import.meta.url));

export interface PlaygroundAssets {
  js: string;
  css: string;
}

/**
 * One bundle (app.js + app.css) from playground/main.tsx: Preact and every module inlined, so the
 * page needs nothing but the server that serves it (no CDN). `outdir` writes the files (the build);
 * without it the bundle is kept in memory (a server run from the sources builds it on first request).
 */
export async function bundlePlayground(outdir?: string): Promise<PlaygroundAssets> {
  const result = await build({
    entryPoints: { app: join(HERE, 'main.tsx') },
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['es2020'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    outdir: outdir ?? join(HERE, 'out'),
    write: outdir !== undefined,
  });
  if (outdir !== undefined) return { js: '', css: '' };
  const file = (ext: string) => result.outputFiles!.find((f) => f.path.endsWith(ext))!.text;
  return { js: file('.js'), css: file('.css') };
}
