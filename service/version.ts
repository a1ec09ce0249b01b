import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';

/** The package's version, from package.json (found from the sources and from dist/ alike). */
export const VERSION: string = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
