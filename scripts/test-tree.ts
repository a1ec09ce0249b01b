/**
 * The tree `npm test` runs its test files in: a copy of the sources with every TypeScript file
 * compiled to JavaScript (esbuild, the transform tsx makes, one file each, not bundled) beside a
 * link to the file itself, and every other file, and every folder without TypeScript, a link back
 * to the sources. Paths are the same relative to the copy's root, so a test finds its fixtures and
 * the code finds its data; a model or grammar keeps its real path inside its linked folder.
 *
 * Why: under tsx each test process, and each worker thread it starts, loaded ~570 modules through
 * tsx's hooks, which run off-thread on Node 20 (a round trip per module): ~1.5 s of CPU before a
 * file's first test, against ~0.7 s compiled. The build users run (dist/) stays what the tests'
 * `chunkd` processes start; this tree is only the test files and the modules they import.
 */
import { build } from 'esbuild';
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';

/** Where the tree is made, anew on each run. */
export const TEST_TREE = join(ROOT, 'node_modules/.cache/chunkd-tests');

/** Top-level folders linked whole, whatever they hold. */
const LINKED = new Set(['node_modules', 'dist', '.git']);

const isTypeScript = (name: string) => /\.tsx?$/.test(name) && !name.endsWith('.d.ts');

const holdsTypeScript = (dir: string): boolean =>
  readdirSync(dir, { withFileTypes: true }).some((e) => (e.isDirectory() ? holdsTypeScript(join(dir, e.name)) : isTypeScript(e.name)));

/** Makes the tree (~2 s) and answers its root. */
export async function buildTestTree(): Promise<string> {
  rmSync(TEST_TREE, { recursive: true, force: true });
  const sources: string[] = [];
  const copy = (rel: string) => {
    mkdirSync(join(TEST_TREE, rel), { recursive: true });
    for (const e of readdirSync(join(ROOT, rel), { withFileTypes: true })) {
      const path = join(rel, e.name);
      const walk = e.isDirectory() && !(rel === '' && LINKED.has(e.name)) && holdsTypeScript(join(ROOT, path));
      if (walk) copy(path);
      else symlinkSync(join(ROOT, path), join(TEST_TREE, path));
      if (e.isFile() && isTypeScript(e.name)) sources.push(join(ROOT, path));
    }
  };
  copy('');
  await build({
    entryPoints: sources,
    outdir: TEST_TREE,
    outbase: ROOT,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
  });
  // The request validators the build compiled (scripts/validators.mjs), where the build made them:
  // the tests' own processes then validate with what a server of that build runs.
  const validators = join(ROOT, 'dist/kernel/validators');
  if (existsSync(validators)) symlinkSync(validators, join(TEST_TREE, 'kernel/validators'));
  return TEST_TREE;
}
