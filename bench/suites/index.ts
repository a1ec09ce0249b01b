/** Every suite, in the order of results.md. A suite is one file; add it here. */
import type { Suite } from '../harness.js';
import { encodeSuite } from './encode.js';
import { httpSuite } from './http.js';
import { poolSuite } from './pool.js';
import { tokenSuite } from './token.js';

export const SUITES: Suite[] = [encodeSuite, tokenSuite, httpSuite, poolSuite];
