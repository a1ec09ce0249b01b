/**
 * `npm test`'s runner (with --checks: ESLint, Prettier's check and the type checks first, in
 * parallel): one PostgreSQL for the whole run (each test file makes its own databases on
 * it; a file that stops the server starts its own), then Node's test runner over every test file,
 * three files at a time (CHUNKD_TEST_CONCURRENCY). Arguments name test files to run instead of all. The
 * build comes first: the tests' `chunkd` processes start from dist/. The test files run compiled, in
 * the tree scripts/test-tree.ts makes.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { ROOT } from '../kernel/paths.js';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { buildTestTree } from './test-tree.js';

const testFiles = (dir: string): string[] =>
  readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? (dir === 'plugins' ? testFiles(join(dir, e.name)) : []) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );

const args = process.argv.slice(2);
/** `--checks` (npm test): the lint, the format check and the type checks first, side by side. */
const checks = args.includes('--checks');
const named = args.filter((a) => a !== '--checks');
const files = named.length ? named.map((f) => relative(ROOT, resolve(f))) : [...testFiles('test'), ...testFiles('plugins')];
// Three files at a time on this two-core machine: compiled, the suite leaves a core idle a fifth
// of the time at two (files waiting on child processes, kills and timers). Measured in one
// session: 424 s at two (that run with source maps on), 384 s at three, 445 s at four (more CPU:
// the files contend). At three the run is bound by CPU: both cores were 97% busy over a whole run
// (sampled every 5 s), so a file that waits costs nothing and only less work makes the run shorter.
const concurrency = process.env.CHUNKD_TEST_CONCURRENCY ?? '3';
/** A test that hangs fails after this long (ms), so a run always ends and names it. */
const timeout = process.env.CHUNKD_TEST_TIMEOUT_MS ?? '600000';

/** Each phase's wall time (s), printed at the end: where a slow run's time went. */
const phases: [string, number][] = [];
let mark = performance.now();
const lap = (phase: string) => {
  const now = performance.now();
  phases.push([phase, (now - mark) / 1000]);
  mark = now;
};

const bin = (name: string) => join(ROOT, 'node_modules/.bin', name);
if (checks) {
  const commands = [
    [bin('eslint'), '--config', 'scripts/eslint.config.js', '.'],
    [bin('prettier'), '--check', '--log-level', 'warn', '**/*.{ts,tsx,mts}'],
    [bin('tsc'), '--noEmit'],
    [bin('tsc'), '--noEmit', '-p', 'playground'],
  ];
  const codes = await Promise.all(
    commands.map(
      ([command, ...rest]) => new Promise<number>((resolve) => spawn(command!, rest, { cwd: ROOT, stdio: 'inherit' }).on('exit', (c) => resolve(c ?? 1))),
    ),
  );
  const failed = commands.filter((_, i) => codes[i] !== 0).map((c) => c.map((w) => w.replace(`${ROOT}/node_modules/.bin/`, '')).join(' '));
  if (failed.length) {
    console.error(`Failed: ${failed.join('; ')}. npm run format mends formatting.`);
    process.exit(1);
  }
  lap('checks');
}

// The build users run (dist/, what npm start and the chunkd bin use): the tests' chunkd processes
// start from it (test/helpers/cli.ts), in about half the time of the sources under tsx.
if (!process.env.CHUNKD_TEST_CLI) {
  execFileSync(process.execPath, [join(ROOT, 'node_modules/tsup/dist/cli-default.js'), '--silent'], { cwd: ROOT, stdio: 'inherit' });
  process.env.CHUNKD_TEST_CLI = join(ROOT, 'dist/cli/index.js');
  lap('build');
}

let postgres: TestPostgres | undefined;
if (!process.env.CHUNKD_TEST_DATABASE_URL) {
  postgres = await startPostgres();
  process.env.CHUNKD_TEST_DATABASE_URL = postgres.url;
  lap('postgresql');
}

/** CHUNKD_TEST_TIMES=FILE also writes each test file's time there, slowest first (scripts/test-times.mjs). */
const times = process.env.CHUNKD_TEST_TIMES
  ? [
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(ROOT, 'scripts/test-times.mjs')}`,
      `--test-reporter-destination=${process.env.CHUNKD_TEST_TIMES}`,
    ]
  : [];

// The test files run compiled (scripts/test-tree.ts); `chunkd-dist` gives them the build's one-module TypeBox (package.json `imports`), when the build has it.
const tree = await buildTestTree();
lap('test tree');
const compiled = files.map((f) => join(tree, f.replace(/\.ts$/, '.js')));
const condition = existsSync(join(ROOT, 'dist/vendor/typebox.js')) ? ['--conditions=chunkd-dist'] : [];
const child = spawn(
  process.execPath,
  [...condition, '--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...times, `--test-timeout=${timeout}`, ...compiled],
  {
    cwd: tree,
    stdio: 'inherit',
    env: process.env,
  },
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
const code = await new Promise<number>((resolve) => child.on('exit', (c, s) => resolve(c ?? (s ? 1 : 0))));
lap('tests');
await postgres?.close();
console.log(`npm test: ${phases.map(([phase, s]) => `${phase} ${s.toFixed(1)} s`).join(', ')}`);
process.exit(code);
