import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { checkTextLength, ChunkdError, overLimit, type ExtractLimits, type Extractor } from '../../kernel/index.js';
import { DecodeBudget, meteredPdfjsWorker, withDecodeBudget } from './pdf-budget.js';

/**
 * PDF → text with pdfjs-dist (Mozilla's PDF.js, legacy build: the one made for Node). Pages
 * are read in order, each page's text items joined as PDF.js lays them out, one line per text
 * line; a vertical gap larger than PARAGRAPH_GAP line heights becomes a blank line, so paragraphs
 * stay apart for the chunkers.
 *
 * Page separator: pages are joined by "\n\f\n" (a form feed on its own line, as pdftotext marks
 * pages): page n of a chunk starting at `start_index` is 1 + the number of "\f" before it.
 *
 * Every byte PDF.js decodes for the file counts against maxPdfDecodedBytes, whatever the filters
 * (pdf-budget.ts): past it the file is refused (413), whether PDF.js failed on the stream that
 * crossed it or skipped it and carried on.
 *
 * Nothing leaves the machine: PDF.js runs without its web worker (its "fake worker" in this
 * thread; the caller puts the whole extraction in the pool), without eval, without font faces,
 * and reads the CMaps and standard font metrics it may need from its own package directory.
 */
export const PAGE_SEPARATOR = '\n\f\n';
const PARAGRAPH_GAP = 1.8;

export const pdf: Extractor = {
  format: 'pdf',
  async extract(bytes, limits, signal) {
    const budget = new DecodeBudget(limits.maxPdfDecodedBytes);
    const overBudget = () => overLimit('bytes once its streams are decoded', limits.maxPdfDecodedBytes, 'maxPdfDecodedBytes');
    try {
      const text = await withDecodeBudget(budget, () => readPdf(bytes, limits, signal));
      if (budget.exceeded) throw overBudget();
      return text;
    } catch (e) {
      throw budget.exceeded ? overBudget() : e;
    }
  },
};

async function readPdf(bytes: Uint8Array, limits: ExtractLimits, signal?: AbortSignal): Promise<string> {
  const pdfjs = await loadPdfjs();
  // PDF.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = pdfjs.getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    useWasm: false,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
    cMapUrl: assets('cmaps'),
    cMapPacked: true,
    standardFontDataUrl: assets('standard_fonts'),
  });
  try {
    const doc = await task.promise.catch((e: unknown) => {
      if (e instanceof Error && e.name === 'PasswordException') {
        throw new ChunkdError('VALIDATION', 'The PDF is encrypted with a password: save a copy without the password and upload that.');
      }
      throw e;
    });
    if (doc.numPages > limits.maxPages) throw overLimit('pages', limits.maxPages, 'maxPages');
    const pages: string[] = [];
    let chars = 0;
    for (let n = 1; n <= doc.numPages; n++) {
      signal?.throwIfAborted();
      const page = await doc.getPage(n);
      const text = pageText((await page.getTextContent()).items);
      page.cleanup();
      chars += text.length + PAGE_SEPARATOR.length;
      checkTextLength(chars, limits);
      pages.push(text);
    }
    return pages.join(PAGE_SEPARATOR);
  } finally {
    await task.destroy();
  }
}

interface Item {
  str?: string;
  hasEOL?: boolean;
  height?: number;
  transform?: number[];
}

/** One page's text: items in PDF.js order, a newline where it marks a line's end, a blank line at a paragraph gap. */
export function pageText(items: readonly object[]): string {
  let out = '';
  let lastY: number | undefined;
  let lastHeight = 0;
  let lineStart = true;
  for (const item of items as readonly Item[]) {
    if (typeof item.str !== 'string') continue; // a marked-content tag, not text
    if (item.str !== '') {
      const y = item.transform?.[5] ?? 0;
      const height = item.height ?? 0;
      if (lineStart && lastY !== undefined && lastY - y > PARAGRAPH_GAP * Math.max(height, lastHeight)) out += '\n';
      out += item.str;
      lastY = y;
      lastHeight = height;
      lineStart = false;
    }
    if (item.hasEOL) {
      out += '\n';
      lineStart = true;
    }
  }
  return out.trimEnd();
}

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loaded: Promise<Pdfjs> | undefined;

/**
 * PDF.js and its worker code (metered: pdf-budget.ts), imported once per thread. Setting
 * `globalThis.pdfjsWorker` makes PDF.js run its worker side in this thread from that module,
 * rather than look for a worker script to start.
 */
function loadPdfjs(): Promise<Pdfjs> {
  return (loaded ??= (async () => {
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = meteredPdfjsWorker();
    return import('pdfjs-dist/legacy/build/pdf.mjs');
  })());
}

const require = createRequire(import.meta.url);

/** A directory of PDF.js's package, as the path (with a trailing slash) its Node readers open. */
function assets(dir: string): string {
  return join(dirname(require.resolve('pdfjs-dist/package.json')), dir) + '/';
}
