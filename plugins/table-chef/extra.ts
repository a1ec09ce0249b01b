import type { Extra } from '../../kernel/index.js';

/** The package that parses CSV and TSV: declared by the manifest, required by the implementation. */
export const CSV_EXTRA: Extra = {
  name: 'table',
  packages: ['csv-parse'],
  reason: 'Parses CSV and TSV files (quoted fields, embedded newlines).',
  required: false,
};
