/** The recursive chunker is shared code (kernel/split/recursive.ts): late and slumber cut with it too. */
export { createRecursive as create } from '../../kernel/index.js';
