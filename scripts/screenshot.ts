/**
 * docs/playground.png: the playground in the Chromium the browser tests use (test/helpers/browser.ts),
 * against the real app, chunking a short markdown text with the recursive chunker after the markdown chef.
 * Run: npm run screenshot
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../kernel/paths.js';
import { startApp } from '../test/helpers/app.js';
import { launchChromium } from '../test/helpers/browser.js';

const TEXT = `# Choosing a chunk size

Retrieval works on pieces of a document, not the whole of it. A chunker cuts the text into pieces that fit the embedding model and still make sense on their own.

## Small or large

Small chunks match a question precisely but lose their context. Large chunks keep the context but blur the match. Most systems choose something between 256 and 1024 tokens.

## Look before you choose

Each chunk is a coloured span over the text; hover one to see its id, offsets and token count. The histogram shows how the sizes spread against chunk_size, and the list gives every chunk with its metadata.
`;

const out = join(ROOT, 'docs', 'playground.png');
const app = await startApp();
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1 });
  await page.goto(`${app.url}/playground`);
  await page.waitForSelector('#source option[value="chunker:recursive"]', { state: 'attached' });
  await page.fill('#text', TEXT);
  await page.selectOption('#source', 'chunker:recursive');
  await page.fill('#cfg-recursive-chunk_size', '160');
  await page.fill('#cfg-recursive-recipe', 'markdown');
  await page.selectOption('#chef', 'markdown'); // the chunks' details show their heading path
  await page.click('#run');
  await page.waitForSelector('#totals');
  await page.hover('.spans .seg[data-chunks="4"]');
  mkdirSync(join(ROOT, 'docs'), { recursive: true });
  await page.screenshot({ path: out });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await app.close();
}
