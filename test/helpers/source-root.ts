import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from '../../kernel/paths.js';

/**
 * The source tree itself. `npm test` runs the tests compiled, in a copy of the tree whose other files
 * link back here (scripts/test-tree.ts), where ROOT is the copy: a test that lints the sources
 * uses this.
 */
export const SOURCE_ROOT = dirname(realpathSync(join(ROOT, 'package.json')));
