import Type from '#typebox';
import { defineChef } from '../../kernel/index.js';
import { CSV_EXTRA } from './extra.js';

export const TableChefConfig = Type.Object({});

export default defineChef({
  name: 'table',
  summary: 'CSV and TSV files to a markdown table; in a text, its markdown tables as spans.',
  extras: [CSV_EXTRA],
  config: TableChefConfig,
  extensions: ['.csv', '.tsv'],
  mediaTypes: ['text/csv', 'text/tab-separated-values', 'application/csv'],
  offLoop: true,
  examples: [{ text: 'Prices:\n\n| item | price |\n|---|---|\n| tea | 3 |\n' }],
  load: () => import('./impl.js'),
});
