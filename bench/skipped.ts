/** Peers the issue names that are not benchmarked, and why (listed at the end of results.md). */
export const SKIPPED: string[] = [
  "LlamaIndex's SentenceSplitter (`@llamaindex/node-parser`): it declares peer dependencies on `web-tree-sitter@^0.24` (chunkd pins 0.25.10 for the code chunker) and on the native `tree-sitter` package, so npm refuses to install it next to chunkd without `--legacy-peer-deps`, which would weaken every later install of the project.",
  "chonkiejs' CodeChunker: its tree-sitter-language-pack backend downloads its parsers from the network on first use, which the bench may not do (and cannot here).",
  'Peers for the semantic chunker (chonkiejs, LangChain): each needs an embedding model from a hub or an API; see the Semantic chunker section.',
];
