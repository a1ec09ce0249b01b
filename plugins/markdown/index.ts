import Type from '#typebox';
import { defineChef, STRUCTURE_COST } from '../../kernel/index.js';

export const MarkdownConfig = Type.Object({});

export default defineChef({
  name: 'markdown',
  summary: 'Markdown: the text as it is, with its headings, tables, fenced code blocks and images as spans.',
  extras: [],
  config: MarkdownConfig,
  extensions: ['.md', '.markdown', '.mdx'],
  mediaTypes: ['text/markdown', 'text/x-markdown'],
  // Its scan takes ~3 s on 16 MiB: in the extraction worker when the server has workers.
  offLoop: true,
  cost: () => STRUCTURE_COST,
  examples: [{ text: '# Install\n\n## From source\n\n```sh\nnpm install\n```\n' }],
  load: () => import('./impl.js'),
});
