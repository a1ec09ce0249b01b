import Type from '#typebox';
import { defineChef, PARSER_COST } from '../../kernel/index.js';

export const HtmlConfig = Type.Object({});

export default defineChef({
  name: 'html',
  summary: 'HTML to plain text: blocks, lists and tables kept as lines; scripts, styles and images dropped.',
  extras: [
    { name: 'html', packages: ['html-to-text'], reason: 'Turns HTML into plain text: blocks, lists and tables kept as lines, scripts and styles dropped.' },
  ],
  config: HtmlConfig,
  extensions: ['.html', '.htm', '.xhtml'],
  mediaTypes: ['text/html', 'application/xhtml+xml'],
  offLoop: true,
  examples: [{ text: '<h1>Title</h1><p>Some <b>bold</b> text.</p>' }],
  load: () => import('./impl.js'),
  cost: () => PARSER_COST,
});
