/**
 * How long one PDF extraction holds the event loop, inline and through the worker pool
 * (`node --import tsx bench/extract-loop.ts [pages]`): the worst gap between 5 ms timer ticks
 * while a generated PDF of `pages` pages (default 500) is extracted. Prints; never part of `npm test`.
 */
import { WorkerPool } from '../kernel/engine/index.js';
import { discover } from '../kernel/discovery.js';
import { type FileFacts } from '../kernel/chef/select.js';
import { extractFile, type RunWith } from '../test/helpers/run.js';

const registry = await discover();
const extractText = (b: Uint8Array, f: FileFacts, o?: RunWith) => extractFile(registry, b, f, o);

const pages = Number(process.argv[2] ?? 500);
const { PDFDocument, StandardFonts } = await import('pdf-lib');
const doc = await PDFDocument.create();
const font = await doc.embedFont(StandardFonts.Helvetica);
for (let i = 0; i < pages; i++) {
  const page = doc.addPage();
  for (let l = 0; l < 50; l++)
    page.drawText(`Page ${i + 1}, line ${l}: the quick brown fox jumps over the lazy dog.`, { x: 40, y: 800 - l * 15, size: 10, font });
}
const bytes = await doc.save();

async function worstGap(run: () => Promise<unknown>): Promise<{ ms: number; worst: number }> {
  let worst = 0;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
  }, 5);
  const t0 = performance.now();
  await run();
  const ms = performance.now() - t0;
  clearInterval(timer);
  return { ms, worst };
}

const file = { filename: 'big.pdf' };
const pool = new WorkerPool({ threads: 1 });
await pool.ready;
await extractText(bytes.slice(0, 0), { filename: 'x.txt' }); // load this thread's modules outside the timing
for (const [name, run] of [
  ['pool (first, worker already warm)', () => extractText(bytes, file, { executor: pool })],
  ['inline (first: PDF.js loads)', () => extractText(bytes, file)],
  ['inline (again)', () => extractText(bytes, file)],
  ['pool (again)', () => extractText(bytes, file, { executor: pool })],
] as const) {
  const { ms, worst } = await worstGap(run);
  console.log(`${pages} pages (${(bytes.length / 1e6).toFixed(1)} MB), ${name}: ${ms.toFixed(0)} ms in all, event loop held up to ${worst.toFixed(0)} ms`);
}
await pool.close();
