/**
 * The extraction limits on the wire (POST /v1/files): each 413 names its server setting, a full
 * extraction queue answers 503 with Retry-After, and a small upload behind slow PDFs is answered
 * first. Small settings keep the run short.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closeExtractPools, EXTRACT_MEMORY_MB } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import { startApp, type TestApp } from './helpers/app.js';
import { deflatedSpaces, hostilePdf, manyPagesPdf } from './helpers/hostile-pdf.js';

async function upload(app: TestApp, content: Uint8Array | string, filename: string, signal?: AbortSignal) {
  const form = new FormData();
  form.append('file', new Blob([content]), filename);
  const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form, signal });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

describe('POST /v1/files: extraction limits', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp({
      workers: '1',
      'max-pdf-decoded-bytes': String(4 * 1024 * 1024),
      'max-extract-ms': '60000',
      'max-extract-queue': '1',
      'extract-threads': '2',
      'worker-nice': '3',
    });
  });
  after(async () => {
    await app.close();
    await closeExtractPools();
  });

  test('a PDF whose streams decode past the budget → 413 naming --max-pdf-decoded-bytes', async () => {
    const streams = Array.from({ length: 100 }, () => ({ dict: '/Filter /Flat#65Decode', data: deflatedSpaces(256 * 1024 - 1) }));
    const res = await upload(app, hostilePdf(streams), 'bomb.pdf');
    assert.equal(res.status, 413);
    assert.match(res.body.detail, /\(4194304, limit --max-pdf-decoded-bytes, CHUNKD_MAX_PDF_DECODED_BYTES\)/);
  });

  test('behind slow PDFs, a small HTML upload is answered first; past the queue → 503 with Retry-After', async () => {
    const slow = manyPagesPdf(1999);
    const stop = new AbortController();
    const order: string[] = [];
    const pdfs = [1, 2].map((i) =>
      upload(app, slow, `${i}.pdf`, stop.signal).then(
        (r) => order.push(`pdf ${r.status}`),
        () => order.push('pdf aborted'),
      ),
    );
    const pool = extractPool({ threads: 2, maxMs: 60_000, maxQueue: 1, memoryMb: EXTRACT_MEMORY_MB, nice: 3 }); // the server's, by its settings
    while (pool.queued < 1) await new Promise((r) => setTimeout(r, 10)); // both uploads read: one extracting, one waiting
    const full = await upload(app, slow, '3.pdf');
    assert.equal(full.status, 503, JSON.stringify(full.body));
    assert.match(full.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.match(full.body.detail, /limit --max-extract-queue, CHUNKD_MAX_EXTRACT_QUEUE/);
    const small = await upload(app, '<p>hi</p>', 'small.html');
    order.push(`html ${small.status}`);
    // Not held behind the PDFs: answered while the queued one still waits for the thread they share (the first
    // may be done by now: the third upload's body took its time to arrive).
    assert.equal(small.status, 201);
    assert.ok(order.filter((o) => o.startsWith('pdf')).length < 2, `the small upload was answered after both PDFs: ${order.join(', ')}`);
    stop.abort();
    await Promise.all(pdfs);
  });
});
