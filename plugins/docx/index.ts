import Type from '#typebox';
import { defineChef, PARSER_COST } from '../../kernel/index.js';

export const DocxConfig = Type.Object({});

export default defineChef({
  name: 'docx',
  summary: 'Word (.docx) documents to text with mammoth: one paragraph per block.',
  extras: [{ name: 'docx', packages: ['mammoth'], reason: 'Reads the text of Word (.docx) documents.' }],
  config: DocxConfig,
  extensions: ['.docx'],
  mediaTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  offLoop: true,
  bytesOnly: true,
  load: () => import('./impl.js'),
  cost: () => PARSER_COST,
});
