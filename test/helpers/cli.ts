import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * How tests run `chunkd`: `node ...CLI args…`. `npm test` builds dist/ once before the run and names
 * it in CHUNKD_TEST_CLI, so each process starts from the build users run (about half the start-up
 * time of the sources under tsx); a test file run on its own uses the sources.
 */
const BUILT = process.env.CHUNKD_TEST_CLI ? resolve(process.env.CHUNKD_TEST_CLI) : undefined;

export const CLI: string[] = BUILT ? [BUILT] : ['--import', 'tsx', join(ROOT, 'cli/index.ts')];

/** CLI, able to load the TypeScript plugins tests write (a --plugins-dir): the build under tsx's loader. */
export const CLI_WITH_TS_PLUGINS: string[] = BUILT ? ['--import', 'tsx', BUILT] : CLI;

/** True when CLI runs the build `npm test` made (so a test need not build dist/ again). */
export const CLI_FROM_BUILD = BUILT !== undefined;
