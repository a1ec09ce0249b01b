/**
 * Bounds on the work one file's extraction may do, so its cost follows its size: a small PDF
 * that declares a million pages, or a small DOCX that inflates to gigabytes, is refused (413)
 * before the work is done, not after.
 */
export interface ExtractLimits {
  /** Pages of a PDF: more is refused before any page is read. */
  maxPages: number;
  /** Characters of extracted text: a file whose text grows past it is refused. */
  maxTextChars: number;
  /** Bytes a DOCX (a zip) may inflate to, summed over its entries. */
  maxUnzippedBytes: number;
  /** Entries in a DOCX's zip. */
  maxZipEntries: number;
  /**
   * Nesting depth of HTML elements: a deeper document is refused (its parser's time grows with
   * the depth for every tag: html-depth.ts), and the converter's recursion stops there too.
   */
  maxHtmlDepth: number;
  /**
   * Cost of one HTML table's text layout: the area its cells span plus the square of its longer
   * side (the converter transposes a square grid). Spans are clamped to 64 first (html-tables.ts).
   */
  maxTableCells: number;
  /**
   * Bytes PDF.js may decode from one PDF's streams, summed over the file, whatever their filters
   * (pdf-budget.ts): a small file that inflates to gigabytes is refused at this many.
   */
  maxPdfDecodedBytes: number;
  /**
   * Spans of each kind (headings, tables, code, images, pages) one document's structure keeps:
   * past it, further spans of that kind are dropped and counted (metadata.dropped_spans), and the
   * text is still answered. What a chef finds is otherwise unbounded by its text's size
   * (`#\n` × 2,000,000 is two million headings, ~130 MB of JSON from 4 MB).
   */
  maxStructureSpans: number;
}

export const DEFAULT_LIMITS: ExtractLimits = {
  maxPages: 2000,
  maxTextChars: 16 * 1024 * 1024,
  maxUnzippedBytes: 128 * 1024 * 1024,
  maxZipEntries: 10_000,
  maxHtmlDepth: 1024,
  maxTableCells: 25_000_000,
  maxPdfDecodedBytes: 256 * 1024 * 1024,
  maxStructureSpans: 100_000,
};
