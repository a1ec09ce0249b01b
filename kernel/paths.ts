import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: kernel/ lives directly below it in the sources and below dist/ when built. */
const kernelDir = dirname(fileURLToPath(import.meta.url));
const builtIn = kernelDir.split(sep).at(-2) === 'dist';
export const ROOT = builtIn ? join(kernelDir, '..', '..') : join(kernelDir, '..');

/**
 * The URL of the module `name` (a path without extension, relative to `moduleUrl`) in the form the
 * caller runs as: `.ts` from the sources under tsx, `.js` when built or compiled for the tests.
 */
export const moduleBeside = (moduleUrl: string, name: string): string => new URL(`${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.js'}`, moduleUrl).href;

/** The folder of built-in plugins next to the running kernel (sources or dist). */
export const BUILTIN_PLUGINS_DIR = join(kernelDir, '..', 'plugins');

/**
 * Data files (recipes, models, grammars lists) stay in the source tree and are not copied into
 * dist/: a module finds its own data folder with `assetDir(import.meta.url)` either way.
 */
export function assetDir(moduleUrl: string, ...segments: string[]): string {
  const dir = dirname(fileURLToPath(moduleUrl));
  const rel = relative(join(ROOT, 'dist'), dir);
  const inDist = !rel.startsWith('..') && !rel.startsWith(sep) && rel !== dir;
  return join(inDist ? join(ROOT, rel) : dir, ...segments);
}
