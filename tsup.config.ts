import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import { copyFile, readdir, readFile, writeFile } from 'node:fs/promises';
import { defineConfig } from 'tsup';
import { bundlePlayground } from './playground/build.js';

/**
 * TypeBox in one module. Its package is ~370 files, and loading them was most of a `chunkd`
 * process's start (0.2 s of 0.55 s for `chunkd --help`) and of each test process's under tsx
 * (0.8 s). The sources import it as `#typebox` (package.json `imports`): dist/'s own package.json
 * maps that to this bundle, and the sources to the package (or, under the condition `chunkd-dist`,
 * which the test runner sets, to this bundle).
 */
async function bundleTypebox(outdir: string): Promise<void> {
  await build({
    entryPoints: { typebox: 'typebox' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'silent',
    outdir: `${outdir}/vendor`,
  });
  // hash-wasm's ES module build, as package.json's `#hash-wasm` names it: its main file is a CommonJS
  // one of ~280 KB, which Node lexes for its exports in every thread that imports it (~60 ms each).
  const hashWasm = (JSON.parse(await readFile('package.json', 'utf8')) as { imports: Record<string, { default: string }> }).imports['#hash-wasm']!.default;
  const scope = { type: 'module', imports: { '#typebox': './vendor/typebox.js', '#hash-wasm': hashWasm } };
  await writeFile(`${outdir}/package.json`, `${JSON.stringify(scope, null, 2)}\n`);
}

/** The folders of the code users run: each TypeScript file is built to one module of dist/. */
const FLOORS = ['kernel', 'plugins', 'wire', 'service', 'server', 'cli'];

/** The floors' CommonJS files (a pool's worker entry, kernel/engine/placement/worker-entry.ts), copied as they are. */
async function copyCommonJs(outdir: string): Promise<void> {
  for (const floor of FLOORS)
    for (const file of await readdir(floor, { recursive: true })) if (file.endsWith('.cjs')) await copyFile(`${floor}/${file}`, `${outdir}/${floor}/${file}`);
}

// Transpile file by file (no bundling) so dist/ mirrors the source tree: plugin folders stay
// discoverable and each plugin's load() keeps importing its implementation lazily.
export default defineConfig({
  entry: [...FLOORS.map((floor) => `${floor}/**/*.ts`), '!**/*.test.ts'],
  outDir: 'dist',
  format: ['esm'],
  target: 'node20',
  platform: 'node',
  bundle: false,
  clean: true,
  sourcemap: true,
  dts: false,
  // The playground page is one browser bundle (playground/build.ts), written beside the server.
  // Then the request validators, compiled once for every start (scripts/validators.mjs): it boots dist/.
  onSuccess: async () => {
    await Promise.all([bundlePlayground('dist/playground'), bundleTypebox('dist'), copyCommonJs('dist')]);
    execFileSync(process.execPath, ['scripts/validators.mjs'], { stdio: 'inherit' });
  },
});
