export { sentenceSplitter, splitSentences, type SentenceSpan, type SplitOptions, type Splitter, type MergeRule } from './sentences.js';
export { groupEnds } from './groups.js';
export { utf8LengthUpTo } from './utf8.js';
export { loadRecipe, type Recipe, type Rule } from './recipes.js';
export { createRecursive, RecursiveConfig, recursiveChunker } from './recursive.js';
