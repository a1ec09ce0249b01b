export { sentenceSplitter, splitSentences, type SentenceSpan, type SplitOptions, type Splitter } from './sentences.js';
export { groupEnds } from './groups.js';
export { utf8LengthUpTo } from './utf8.js';
