import Type from '#typebox';
import { ChunkSizeField, defineChunker, PARSER_COST, TokenizerField, tokenizerCost } from '../../kernel/index.js';

export const CodeConfig = Type.Object({
  tokenizer: TokenizerField(),
  chunk_size: ChunkSizeField(),
  language: Type.String({
    default: 'python',
    minLength: 1,
    maxLength: 64,
    description:
      'Language of the source: a name or alias from the plugin README (python, js, ts, tsx, java, go, rust, c, c++, cs, ruby, php, sh, kotlin, swift, scala, lua, …), or auto to detect it.',
  }),
  include_nodes: Type.Boolean({
    default: false,
    description:
      'Add metadata to each chunk: the syntax node types it covers, its first and last line (1-based), whether it holds a syntax error, and the language.',
  }),
});

export default defineChunker({
  name: 'code',
  summary: 'Source code cut at syntax boundaries (tree-sitter): functions and classes that fit stay whole.',
  extras: [{ name: 'code', packages: ['web-tree-sitter', 'tree-sitter-wasms'], reason: 'The tree-sitter parser (WebAssembly) and its prebuilt grammars.' }],
  config: CodeConfig,
  examples: [{ text: 'import os\n\n\ndef main():\n    print(os.getcwd())\n', language: 'python', chunk_size: 64, include_nodes: true }],
  load: () => import('./impl.js'),
  cost: (config) => PARSER_COST * tokenizerCost(config.tokenizer),
});
