import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startApp, type TestApp } from './helpers/app.js';
import { launchChromium } from './helpers/browser.js';
import { startAppWithFakeLlm } from './helpers/fake-llm.js';

// The playground in headless Chromium against a real chunkd (the Koa app on 127.0.0.1). Screenshots
// go to a temporary folder named in the test output, to be looked at.

const TEXT = `# Notes on chunking

Retrieval works on pieces of a document. A chunker cuts the text into pieces that fit the model and still make sense alone.

| size | use |
|------|-----|
| 256  | precise matches |
| 1024 | more context |

Emoji 🙂 and CJK 日本語のテキスト count as one code point each, so the page converts offsets. def f(x): return x + 1
`;

// Chunkers whose chunks may leave out text or overlap (none with these settings: every chunker's
// answer here covers the text, which the test checks on the page).
const NOT_TILING = new Set<string>();

// Callbacks passed to page.evaluate and friends run in the browser; this file is type-checked for Node.
declare const document: any, sessionStorage: any, localStorage: any, innerHeight: number, scrollY: number, scrollTo: (x: number, y: number) => void;

let app: TestApp;
let browser: Browser;
let page: Page;
const shots = mkdtempSync(join(tmpdir(), 'chunkd-playground-'));

before(async () => {
  browser = await launchChromium(); // first: a missing Chromium fails here with the install hint
  app = await startAppWithFakeLlm();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => assert.fail(`the page threw: ${e.message}`));
  await page.goto(`${app.url}/playground`);
  await page.waitForSelector('#source option[value="chunker:token"]', { state: 'attached' });
});

after(async () => {
  await browser?.close();
  await app?.close();
});

const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });

/** Click Run (or another button) and wait until the totals name `label` or an error is shown. */
async function runAndWait(label: string, button = '#run') {
  await page.click(button);
  await page.waitForFunction(
    (l) => (document.querySelector('#totals')?.textContent ?? '').endsWith(l) || document.querySelector('#message.error') !== null,
    label,
  );
  const error = await page.$eval('#message', (m) => (m.classList.contains('error') ? m.textContent : '')).catch(() => '');
  assert.equal(error, '', `the page showed an error for ${label}`);
}

/** Every coloured piece of the text: its characters and the chunks it belongs to. */
const segmentsOnPage = () =>
  page.$$eval('.spans .seg', (els) =>
    els.map((e) => ({ text: e.textContent ?? '', chunks: e.getAttribute('data-chunks') ? e.getAttribute('data-chunks')!.split(' ').map(Number) : [] })),
  );

test('every chunker: the spans rebuild the chunks the API answers and tile the input where the chunker does', async (t) => {
  const chunkers = await page.$$eval('#source optgroup[label="Chunkers"] option', (os) => os.map((o) => o.getAttribute('value')!.slice('chunker:'.length)));
  const plugins = (await app.request('GET', '/v1/plugins')).body as { name: string; kind: string; route: string }[];
  assert.deepEqual(
    chunkers,
    plugins.filter((p) => p.kind === 'chunker').map((p) => p.name),
    'one option per chunker of /v1/plugins',
  );
  await page.fill('#text', TEXT);
  const tiled: string[] = [];
  for (const name of chunkers) {
    await page.selectOption('#source', `chunker:${name}`);
    const small = (await page.$(`#cfg-${name}-chunk_size`)) !== null;
    if (small) await page.fill(`#cfg-${name}-chunk_size`, '40');
    const answer = app.post(plugins.find((p) => p.name === name)!.route, { text: TEXT, ...(small ? { chunk_size: 40 } : {}) });
    await runAndWait(` ${name}`);
    const expected = (await answer).body as { id: string; text: string; start_index: number; end_index: number }[];
    assert.ok(Array.isArray(expected) && expected.length > 0, `${name}: the API answered chunks`);
    assert.equal(await page.$eval('#totals strong', (e) => Number(e.textContent)), expected.length, `${name}: chunk count`);
    const segs = await segmentsOnPage();
    assert.equal(segs.map((s) => s.text).join(''), TEXT, `${name}: the pieces are the whole text, in order`);
    expected.forEach((c, i) => {
      const shown = segs
        .filter((s) => s.chunks.includes(i))
        .map((s) => s.text)
        .join('');
      assert.equal(shown, c.text, `${name}: chunk #${i} on the page`);
    });
    if (!NOT_TILING.has(name)) {
      assert.ok(
        segs.every((s) => s.chunks.length <= 1),
        `${name}: no text in two chunks`,
      );
      assert.deepEqual(
        segs.filter((s) => s.chunks.length === 0 && s.text.trim() !== '').map((s) => s.text),
        [],
        `${name}: nothing left out but whitespace`,
      );
      tiled.push(name);
    }
    // Hovering a piece shows its chunk's details.
    const first = await page.$('.spans .seg[data-chunks="0"]');
    await first!.hover();
    assert.match((await page.textContent('.details')) ?? '', new RegExp(expected[0]!.id));
    if (['token', 'code', 'table'].includes(name)) await shot(`chunker-${name}`);
  }
  t.diagnostic(`tiling checked for ${tiled.join(', ')}; screenshots in ${shots}`);
  assert.ok(tiled.length >= chunkers.length - NOT_TILING.size);
});

test('save the settings as a pipeline: listed, runnable; a 422 is shown at the field it names', async () => {
  await page.selectOption('#source', 'chunker:token');
  await page.fill('#cfg-token-chunk_size', '0');
  await page.fill('#pipeline-name', 'browser-test');
  await page.click('#save');
  const fieldError = await page.waitForSelector('#cfg-token-chunk_size-error');
  assert.match((await fieldError.textContent()) ?? '', /chunk_size must be >= 1/);
  assert.equal(await page.getAttribute('#cfg-token-chunk_size', 'aria-invalid'), 'true');
  await shot('save-422');
  assert.equal(((await app.request('GET', '/v1/pipelines')).body as unknown[]).length, 0, 'nothing stored');

  await page.fill('#cfg-token-chunk_size', '24');
  await page.click('#save');
  await page.waitForSelector('#message.ok');
  assert.equal(await page.$('#cfg-token-chunk_size-error'), null, 'the field error is gone');
  const stored = (await app.request('GET', '/v1/pipelines')).body as { id: string; name: string; steps: { config: { chunk_size: number } }[] }[];
  assert.equal(stored.length, 1);
  assert.equal(stored[0]!.name, 'browser-test');
  assert.equal(stored[0]!.steps[0]!.config.chunk_size, 24);
  assert.deepEqual(await page.$$eval('.pipelines button', (bs) => bs.map((b) => b.textContent)), ['browser-test']);
  assert.equal(await page.$eval('#source optgroup[label="Stored pipelines"] option', (o) => o.textContent), 'browser-test');

  // The same name again: the 409 is shown at the name field.
  await page.click('#save');
  assert.match((await (await page.waitForSelector('#pipeline-name-error')).textContent()) ?? '', /browser-test/);

  // Run the stored pipeline.
  await page.selectOption('#source', `pipeline:${stored[0]!.id}`);
  await runAndWait(' pipeline browser-test');
  const expected = (await app.post(`/v1/pipelines/${stored[0]!.id}/execute`, { text: TEXT })).body as { text: string }[];
  assert.equal(await page.$eval('#totals strong', (e) => Number(e.textContent)), expected.length);
});

test('run the overlap refinery on the result: contexts shown apart from the chunks', async () => {
  await page.selectOption('#source', 'chunker:recursive');
  await page.fill('#cfg-recursive-chunk_size', '60');
  await runAndWait(' recursive');
  await page.check('#use-overlap');
  await runAndWait(' recursive → overlap', '#refine');
  const contexts = await page.$$eval('.spans .seg.ctx', (els) => els.length);
  assert.ok(contexts > 0, 'context pieces are marked');
  await page.click('button[aria-pressed="false"]:text("List")');
  const listed = await page.$$eval('.chunk-context', (els) => els.length);
  assert.ok(listed > 0, 'the list shows each context');
  await shot('overlap-list');
  await page.click('button:text("Text")');
  await page.uncheck('#use-overlap');

  // Embeddings on the same chunks: each chunk's details show its vector.
  await page.check('#use-embeddings');
  await runAndWait(' recursive → overlap → embeddings', '#refine');
  await page.hover('.spans .seg[data-chunks="0"]');
  assert.match((await page.textContent('.details')) ?? '', /embedding\s*\d+ numbers/);
  await page.uncheck('#use-embeddings');

  // Download JSON: the file is the chunks on the page.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('button:text("Download JSON")')]);
  const saved = JSON.parse(await readFile((await download.path())!, 'utf8')) as { text: string; embedding?: number[] }[];
  assert.equal(saved.length, await page.$eval('#totals strong', (e) => Number(e.textContent)));
  assert.ok(saved.every((c) => Array.isArray(c.embedding) && typeof c.text === 'string'));
});

test('several files run as one batch, each document shown', async () => {
  await page.selectOption('#source', 'chunker:sentence');
  const files = ['a.md', 'b.txt', 'c.py'].map((name, i) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(`File ${name}. `.repeat(i + 3)) }));
  await page.setInputFiles('#files', files);
  await page.waitForSelector('.files');
  await runAndWait(' sentence · 3 documents');
  const options = await page.$$eval('#doc option', (os) => os.map((o) => o.textContent ?? ''));
  assert.equal(options.length, 3);
  assert.match(options[2]!, /^c\.py — \d+ chunks$/);
  await page.selectOption('#doc', '2');
  assert.equal((await segmentsOnPage()).map((s) => s.text).join(''), files[2]!.buffer.toString());

  // A server that streams (Accept: application/x-ndjson → {total}, then one line per document as it
  // finishes, in any order): the page reads each line. The lines are the real API's chunks.
  const texts = files.map((f) => f.buffer.toString());
  const lists = (await app.post('/v1/chunk/sentence', { text: texts })).body as unknown[][];
  let accept = '';
  await page.route('**/v1/chunk/sentence', (route) => {
    accept = route.request().headers().accept ?? '';
    const lines = [
      { total: 3 },
      { index: 2, chunks: lists[2] },
      { index: 0, chunks: lists[0] },
      { index: 1, error: { detail: 'too large for this test', code: 'TOO_LARGE' } },
    ];
    return route.fulfill({ status: 200, contentType: 'application/x-ndjson', body: lines.map((l) => JSON.stringify(l)).join('\n') + '\n' });
  });
  try {
    await page.click('#run');
    await page.waitForFunction(() => document.querySelector('#doc option:nth-child(2)')?.textContent?.endsWith('error'));
    assert.match(accept, /application\/x-ndjson/);
    const streamed = await page.$$eval('#doc option', (os) => os.map((o) => o.textContent ?? ''));
    assert.deepEqual(streamed, [`a.md — ${lists[0]!.length} chunks`, 'b.txt — error', `c.py — ${lists[2]!.length} chunks`]);
    await page.selectOption('#doc', '1');
    assert.match((await page.textContent('.output .banner.error')) ?? '', /b\.txt: too large for this test/);
  } finally {
    await page.unroute('**/v1/chunk/sentence');
  }
  await page.click('button:text("Back to the text box")');
});

test('phone width: no sideways scrolling; every control has a label', async () => {
  await page.setViewportSize({ width: 375, height: 800 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375, 'the page fits 375 px');
  await page.screenshot({ path: join(shots, 'phone.png'), fullPage: true });
  const unlabelled = await page.$$eval('input:not([type=hidden]):not([hidden]), select, textarea', (els) =>
    els.filter((e) => !(e as any).labels?.length && !e.getAttribute('aria-label')).map((e) => e.outerHTML.slice(0, 80)),
  );
  assert.deepEqual(unlabelled, []);
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('keyboard only: Tab reaches Run from the text box, Enter runs, a chunk in the list opens with Enter', async () => {
  await page.selectOption('#source', 'chunker:token');
  await page.fill('#cfg-token-chunk_size', '33');
  await page.focus('#text');
  let tabs = 0;
  while ((await page.evaluate(() => document.activeElement?.id)) !== 'run' && tabs++ < 40) await page.keyboard.press('Tab');
  assert.ok(tabs < 40, 'Run is in the focus order after the settings');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => /· 33 tokens|chunk_size 33/.test(document.querySelector('.histogram figcaption')?.textContent ?? ''));
  await page.click('button:text("List")');
  await page.focus('.chunk-item >> nth=1');
  await page.keyboard.press('Enter');
  assert.match((await page.textContent('.details')) ?? '', /#1/);
  await page.click('button:text("Text")');
});

test('with --api-keys the page loads without a key and its API calls use the key typed in', async () => {
  const keyed = await startApp({ 'api-keys': 'sesame' });
  const p = await browser.newPage();
  try {
    await p.goto(`${keyed.url}/playground`);
    const banner = await p.waitForSelector('.banner.error');
    assert.match((await banner.textContent()) ?? '', /API key/);
    await p.fill('#api-key', 'sesame');
    await p.press('#api-key', 'Enter');
    await p.waitForSelector('#source option[value="chunker:token"]', { state: 'attached' });
    assert.equal(await p.evaluate(() => sessionStorage.getItem('chunkd.api_key')), 'sesame');
    assert.equal(await p.evaluate(() => localStorage.length), 0);
    await p.selectOption('#source', 'chunker:token');
    await p.click('#run');
    await p.waitForSelector('#totals');
  } finally {
    await p.close();
    await keyed.close();
  }
});

test('the page names its script and styles by their hash: a new build is never hidden by a cached one', async () => {
  const html = await (await fetch(`${app.url}/playground`)).text();
  const js = /src="\/playground\/app\.js\?v=([0-9a-f]{16})"/.exec(html)?.[1];
  const css = /href="\/playground\/app\.css\?v=([0-9a-f]{16})"/.exec(html)?.[1];
  assert.ok(js, 'app.js is linked with its version');
  assert.equal(css, js);
  const [script, styles] = await Promise.all(['app.js', 'app.css'].map(async (f) => (await fetch(`${app.url}/playground/${f}?v=${js}`)).text()));
  assert.equal(js, createHash('sha256').update(script!).update('\0').update(styles!).digest('hex').slice(0, 16), 'the version is the hash of what is served');
});

test('a chef before the chunker: the markdown chef processes the text, each chunk shows its heading path', async () => {
  const plugins = (await app.request('GET', '/v1/plugins')).body as { name: string; kind: string; reads?: { bytes_only: boolean } }[];
  const chefs = plugins.filter((p) => p.kind === 'chef');
  const options = await page.$$eval('#chef option', (os) => os.map((o) => ({ value: o.getAttribute('value'), disabled: (o as any).disabled as boolean })));
  assert.deepEqual(
    options.map((o) => o.value),
    ['', ...chefs.map((c) => c.name)],
    'none, then one option per chef of /v1/plugins',
  );
  assert.deepEqual(
    options.filter((o) => o.disabled).map((o) => o.value),
    chefs.filter((c) => c.reads?.bytes_only).map((c) => c.name),
    'chefs that read files only cannot be chosen',
  );
  assert.ok(
    options.some((o) => o.value === 'pdf' && o.disabled),
    'the pdf chef is listed, disabled',
  );

  const markdown =
    '# Guide\n\nThis guide explains the tool in a few short sentences. Read it once.\n\n## Install\n\nRun the installer and wait. Then check the version it prints at the end.\n';
  await page.fill('#text', markdown);
  await page.selectOption('#source', 'chunker:recursive');
  await page.fill('#cfg-recursive-chunk_size', '16');
  await page.selectOption('#chef', 'markdown');
  await runAndWait(' markdown → recursive');

  // What the server answers for the same steps as a stored pipeline: its chunks carry metadata.headings.
  const stored = (
    await app.post('/v1/pipelines', {
      name: 'chef-check',
      steps: [
        { type: 'process', chef: 'markdown', config: {} },
        { type: 'chunk', chunker: 'recursive', config: { chunk_size: 16 } },
      ],
    })
  ).body as { id: string };
  const expected = (await app.post(`/v1/pipelines/${stored.id}/execute`, { text: markdown })).body as {
    start_index: number;
    metadata?: { headings?: string[] };
  }[];
  assert.ok(expected.length > 2, 'several chunks');
  assert.equal(await page.$eval('#totals strong', (e) => Number(e.textContent)), expected.length);
  const detail = async (i: number) => {
    await page.click(`.spans .seg[data-chunks="${i}"]`);
    return page.$$eval('.details dt', (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent ?? ''])));
  };
  const paths: string[] = [];
  for (const [i, c] of expected.entries()) {
    const shown = await detail(i);
    assert.equal(shown.start_index, String(c.start_index), `chunk #${i}: offsets`);
    assert.equal(shown.headings, c.metadata!.headings!.join(' › '), `chunk #${i}: heading path as the server's pipeline gives it`);
    paths.push(shown.headings!);
  }
  assert.ok(paths.includes('Guide › Install'), `a chunk under the second heading shows the path: ${paths.join(' | ')}`);
  await shot('chef-markdown');

  // None: the text goes to the chunker as it is, and the details show no heading path.
  await page.selectOption('#chef', '');
  await runAndWait(' recursive');
  assert.equal((await detail(0)).headings, undefined);
  await page.fill('#text', TEXT);
});

test('search a store: hits best first with their score; a document the page wrote shows each hit as a span of it', async () => {
  type Hit = { text: string; start_index: number; end_index: number; token_count: number; score: number; metadata: { document: string } };
  const steps = [
    { type: 'chunk', chunker: 'recursive', config: { chunk_size: 16 } },
    { type: 'write', store: 'default', config: { collection: 'play' } },
  ];
  const stored = (await app.post('/v1/pipelines', { name: 'store-search', steps })).body as { id: string };
  // Written through the API under an id the page knows no text for: each hit shows its own text and offsets.
  const byApi = 'Rivers flood valleys in spring. Owls hunt mice at night.';
  assert.equal((await app.post(`/v1/pipelines/${stored.id}/execute`, { text: byApi, document: 'doc-1' })).status, 200);
  await page.reload();
  await page.click('#view-search');
  await page.waitForSelector('#search-collection option[value="play"]', { state: 'attached' });
  assert.deepEqual(await page.$$eval('#search-store option', (os) => os.map((o) => o.getAttribute('value'))), ['default']);

  // `count`: the hits the API answered for the same search; the list shown before (another search's) may have another length.
  const searchOnPage = async (query: string, k: number, count: number) => {
    await page.selectOption('#search-collection', 'play');
    await page.fill('#search-query', query);
    await page.fill('#search-k', String(k));
    await page.click('#search');
    await page.waitForFunction((n) => document.querySelectorAll('.hits .hit').length === n, count);
    return page.$$eval('.hits .hit', (lis) =>
      lis.map((li) => ({
        meta: li.querySelector('.meta')?.textContent ?? '',
        text: li.querySelector('.hit-text')?.textContent ?? null,
        whole: li.querySelector('.spans')?.textContent ?? null,
        marked: [...li.querySelectorAll('.spans .seg')]
          .filter((s) => s.getAttribute('data-chunks') === '0')
          .map((s) => s.textContent)
          .join(''),
      })),
    );
  };
  // words of both chunks: the collection's default mode (text, for the built-in model) finds the two
  const expected = (await app.post('/v1/stores/default/search', { collection: 'play', query: 'owls in spring', k: 2 })).body as Hit[];
  assert.equal(expected.length, 2);
  const shown = await searchOnPage('owls in spring', 2, expected.length);
  assert.equal(shown.length, 2, 'k hits');
  expected.forEach((h, i) => {
    assert.match(
      shown[i]!.meta,
      new RegExp(`#${i + 1} · score ${h.score.toFixed(4)} · doc-1 · \\[${h.start_index}, ${h.end_index}\\) · ${h.token_count} tokens`),
      `hit #${i + 1}: rank, score, document, offsets`,
    );
    assert.equal(shown[i]!.text, h.text, `hit #${i + 1}: its own text (the page does not know doc-1)`);
    assert.equal(shown[i]!.whole, null);
  });

  // The page runs the stored pipeline on its own text: the document's id is the text's SHA-256, and its hits are spans of it.
  const byPage = 'Bees make honey in summer. Farmers sell honey at the market.';
  await page.click('#view-chunk');
  await page.fill('#text', byPage);
  await page.selectOption('#source', `pipeline:${stored.id}`);
  await runAndWait(' pipeline store-search');
  await page.click('#view-search');
  await page.waitForSelector('#search-collection option:has-text("play —")', { state: 'attached' });
  const digest = createHash('sha256').update(byPage).digest('hex');
  const all = (await app.post('/v1/stores/default/search', { collection: 'play', query: 'honey', k: 4 })).body as Hit[];
  assert.ok(
    all.some((h) => h.metadata.document === digest),
    'the page wrote its text under its digest',
  );
  const hits = await searchOnPage('honey', 4, all.length);
  assert.equal(hits.length, all.length);
  all.forEach((h, i) => {
    assert.match(hits[i]!.meta, new RegExp(`#${i + 1} · score ${h.score.toFixed(4)} · ${h.metadata.document} ·`));
    if (h.metadata.document === digest) {
      assert.equal(hits[i]!.whole, byPage, `hit #${i + 1}: the whole document is drawn`);
      assert.equal(hits[i]!.marked, h.text, `hit #${i + 1}: its span is the hit's text`);
      assert.equal(hits[i]!.text, null);
    } else assert.equal(hits[i]!.text, h.text);
  });
  assert.ok(
    hits.some((h) => h.whole !== null),
    'at least one hit drawn on its document',
  );
  await shot('store-search');
});

/** Where an element's top is: inside the visible part of the page, or not. */
const inView = (selector: string) =>
  page.$eval(selector, (e: any) => {
    const top = e.getBoundingClientRect().top;
    return top >= 0 && top < innerHeight;
  });

test('search is a view of its own, reached from the top: a mode to choose, a metadata filter, each hit named with its metadata, the hits scrolled into view', async () => {
  const steps = [
    { type: 'chunk', chunker: 'sentence', config: { chunk_size: 24 } },
    { type: 'write', store: 'default', config: { collection: 'named' } },
  ];
  const stored = (await app.post('/v1/pipelines', { name: 'named-search', steps })).body as { id: string };
  const form = new FormData();
  form.append('file', new Blob(['# Owls\n\nOwls hunt mice at night. Barn owls nest in old buildings.\n'], { type: 'text/markdown' }), 'owls.md');
  const file = (await (await fetch(`${app.url}/v1/files`, { method: 'POST', body: form })).json()) as { name: string };
  const run = await app.post(`/v1/pipelines/${stored.id}/execute`, {
    file: { type: 'document', content: file.name },
    metadata: { team: 'birds', tags: ['night', 'hunting'] },
  });
  assert.equal(run.status, 200, JSON.stringify(run.body));

  await page.setViewportSize({ width: 390, height: 640 });
  // Each hit's document text comes late: the mode shown must still arrive with its own hits, never beside the last search's.
  await page.route('**/v1/files/*/text', async (route) => {
    await new Promise((r) => setTimeout(r, 400));
    return route.continue();
  });
  try {
    await page.goto(`${app.url}/playground`);
    await page.waitForSelector('#source option[value="chunker:token"]', { state: 'attached' });
    // The first link of the page's top bar opens the search view; the chunking view is hidden meanwhile.
    assert.equal(await page.isVisible('#search-h'), false);
    await page.click('#view-search');
    assert.equal(await page.isVisible('#search-h'), true);
    assert.equal(await page.isVisible('#text'), false);
    assert.equal(new URL(page.url()).hash, '#search');
    await page.waitForSelector('#search-collection option[value="named"]', { state: 'attached' });
    await page.selectOption('#search-collection', 'named');
    // The store's modes, after the collection's default (text, for the built-in model).
    assert.deepEqual(await page.$$eval('#search-mode option', (os) => os.map((o) => [o.getAttribute('value'), o.textContent])), [
      ['', 'default (text)'],
      ['vector', 'vector'],
      ['text', 'text'],
      ['hybrid', 'hybrid'],
    ]);

    type Hit = { text: string; score: number; metadata: Record<string, unknown> };
    for (const mode of ['', 'hybrid']) {
      await page.evaluate(() => scrollTo(0, 0));
      await page.selectOption('#search-mode', mode);
      await page.fill('#search-query', 'barn owls nest');
      await page.fill('#search-k', '2');
      await page.click('#search');
      await page.waitForFunction((m) => (document.querySelector('#search-ran')?.textContent ?? '').endsWith(`searched in the ${m} mode`), mode || 'text');
      const expected = (await app.post('/v1/stores/default/search', { collection: 'named', query: 'barn owls nest', k: 2, ...(mode ? { mode } : {}) }))
        .body as Hit[];
      assert.ok(expected.length > 0);
      const shown = await page.$$eval('.hits .hit', (lis) =>
        lis.map((li) => ({
          name: li.querySelector('.document')?.textContent ?? '',
          title: li.querySelector('.document')?.getAttribute('title') ?? '',
          metadata: [...li.querySelectorAll('.hit-metadata div')].map((d) => [d.querySelector('dt')?.textContent, d.querySelector('dd')?.textContent]),
        })),
      );
      assert.equal(shown.length, expected.length, `${mode || 'default'}: the hits the API answers`);
      for (const [i, hit] of shown.entries()) {
        assert.equal(hit.name, 'owls.md', "each hit is named by its document's name");
        assert.equal(hit.title, `document ${String(expected[i]!.metadata.document)}`, 'its id is kept at hand');
        // Every key but the document's id and name: the chunk's heading path, then the metadata sent with the file.
        assert.deepEqual(hit.metadata, [
          ['headings', '["Owls"]'],
          ['team', 'birds'],
          ['tags', '["night","hunting"]'],
        ]);
      }
      assert.ok(await inView('#search-results'), `${mode || 'default'}: the hits are scrolled into view at a phone's height`);
      assert.ok(await page.evaluate(() => scrollY > 0), `${mode || 'default'}: the page moved to them from its top`);
    }
    await shot('search-view');

    // A metadata filter keeps the hits of the documents that match it: another document beside the file, of another team.
    const other = await app.post(`/v1/pipelines/${stored.id}/execute`, { text: 'Cats hunt mice in barns.', document: 'cats', metadata: { team: 'cats' } });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    const searchFiltered = async (filter: string, sent = true) => {
      await page.selectOption('#search-mode', '');
      await page.fill('#search-query', 'hunt mice');
      await page.fill('#search-k', '10');
      await page.fill('#search-filter', filter);
      const answered = sent ? page.waitForResponse((r) => r.url().endsWith('/v1/stores/default/search')) : undefined;
      await page.click('#search');
      await answered;
      await page.waitForFunction(() => !document.querySelector('#search')?.hasAttribute('disabled'));
      return page.$$eval('.hits .hit .document', (els) => els.map((e) => e.textContent));
    };
    await page.click('#view-search');
    await page.waitForSelector('#search-collection option[value="named"]', { state: 'attached' });
    await page.click('button:has-text("Refresh the stores")');
    const birds = await searchFiltered('{"metadata": {"team": "birds"}}');
    assert.ok(birds.length > 0 && birds.every((name) => name === 'owls.md'), `team birds: ${birds}`);
    assert.deepEqual(await searchFiltered('{"metadata": {"team": {"in": ["cats"]}}}'), ['cats']);
    assert.ok((await searchFiltered('')).length > birds.length, 'no filter: both documents');
    await searchFiltered('{"metadata": ', false);
    assert.match((await page.textContent('#search-message')) ?? '', /The filter must be JSON/);
    await searchFiltered('{"metadata": {"team": {"like": "b%"}}}');
    assert.match((await page.textContent('#search-message')) ?? '', /The search failed: .*filter/);

    // The chunking view: a run's chunks are scrolled into view (at this width they sit below the form).
    await page.click('#view-chunk');
    await page.evaluate(() => scrollTo(0, 0));
    assert.equal(await inView('#output-h'), false, 'the chunks start below the fold before the run');
    await page.fill('#text', 'One sentence. Another sentence.');
    await page.selectOption('#source', 'chunker:token');
    await runAndWait(' token');
    assert.ok(await inView('#output-h'), 'the chunks are scrolled into view after Run');
  } finally {
    await page.unroute('**/v1/files/*/text');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${app.url}/playground`);
    await page.waitForSelector('#source option[value="chunker:token"]', { state: 'attached' });
  }
});
