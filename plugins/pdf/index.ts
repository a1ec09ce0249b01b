import Type from '#typebox';
import { defineChef, PARSER_COST } from '../../kernel/index.js';

export const PdfConfig = Type.Object({});

export default defineChef({
  name: 'pdf',
  summary: "PDF pages to text with Mozilla's PDF.js, pages as spans.",
  extras: [{ name: 'pdf', packages: ['pdfjs-dist'], reason: "Reads the text of PDF pages (Mozilla's PDF.js)." }],
  config: PdfConfig,
  extensions: ['.pdf'],
  mediaTypes: ['application/pdf', 'application/x-pdf'],
  offLoop: true,
  bytesOnly: true,
  load: () => import('./impl.js'),
  cost: () => PARSER_COST,
});
