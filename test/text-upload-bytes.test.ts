/**
 * A large text or markdown upload costs the event loop neither its decoding nor its re-encoding:
 * with worker threads the text is decoded in the extraction pool (from the upload's shared
 * memory), and the store writes the file's own bytes (past a BOM) as the text instead of encoding
 * the string again. Judged by counts: files decoded on the main thread, text bytes the store
 * encoded, the bytes on disk; and the stored text is exactly what chunk offsets refer to.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { mainThreadDecodes } from '../kernel/chef/decode.js';
import { closeExtractPools, SMALL_FILE_BYTES, type ExtractPoolOptions } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import { processWith as runChef } from './helpers/run.js';
import { discover } from '../kernel/discovery.js';
import { WorkerPool } from '../kernel/engine/index.js';
import { encodedText } from '../service/files/store.js';
import { startApp, type TestApp } from './helpers/app.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
/** Past the small-file size, with two-byte, three-byte and astral characters. */
const TEXT = '# Grüße\n\nPlain words, 日本語, and 🙂 here. '.repeat(Math.ceil((SMALL_FILE_BYTES * 2) / 50));

/** One multipart body with a Content-Length (the upload is read into one shared buffer then). */
async function upload(app: TestApp, file: Buffer, filename: string) {
  const b = 'TextBytesBoundary';
  const body = Buffer.concat([
    Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${b}--\r\n`),
  ]);
  const res = await fetch(`${app.url}/v1/files`, {
    method: 'POST',
    body,
    headers: { 'content-type': `multipart/form-data; boundary=${b}`, 'content-length': String(body.length) },
  });
  return { status: res.status, body: (await res.json()) as any };
}

const snapshot = () => ({ decodes: { ...mainThreadDecodes }, encoded: { ...encodedText } });

async function checkStored(app: TestApp, name: string, text: string) {
  assert.deepEqual(readFileSync(join(app.settings.dataDir, 'files', name, 'text.txt')), Buffer.from(text), 'the stored text is the UTF-8 of the text');
  assert.equal((await app.request('GET', `/v1/files/${name}/text`)).body.text, text);
  const res = await app.post('/v1/chunk/recursive', { file: { type: 'document', content: name }, chunk_size: 512 });
  assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  const points = [...text];
  assert.ok((res.body as Chunk[]).length > 10);
  for (const c of res.body as Chunk[]) assert.equal(points.slice(c.start_index, c.end_index).join(''), c.text);
}

describe('large txt and md uploads with worker threads: decoded in the pool, stored from their own bytes', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ workers: '1' })));
  after(() => app.close());

  for (const [filename, file] of [
    ['notes.txt', Buffer.from(TEXT)],
    ['notes.md', Buffer.concat([BOM, Buffer.from(TEXT)])],
  ] as const) {
    test(`${filename} (${file[0] === 0xef ? 'with' : 'without'} a BOM): no decode on the main thread, no text bytes encoded, offsets exact`, async () => {
      const before = snapshot();
      const up = await upload(app, file, filename);
      assert.equal(up.status, 201, JSON.stringify(up.body));
      assert.equal(up.body.format, filename.endsWith('.md') ? 'markdown' : 'text');
      assert.equal(up.body.text_chars, [...TEXT].length);
      assert.deepEqual(snapshot(), before, 'nothing decoded on the main thread, nothing encoded by the store');
      await checkStored(app, up.body.name, TEXT);
    });
  }

  test('a chef that transforms the text (HTML): the store encodes its text, and the counter says so', async () => {
    const before = snapshot();
    const up = await upload(app, Buffer.from('<p>Grüße 🙂</p>'), 'page.html');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(encodedText.files, before.encoded.files + 1);
    assert.equal(encodedText.bytes, before.encoded.bytes + Buffer.byteLength('Grüße 🙂'));
  });

  test('a file that is not UTF-8 is still refused (422), from the pool', async () => {
    const before = snapshot();
    const up = await upload(app, Buffer.concat([Buffer.from(TEXT), Buffer.from([0xff, 0xfe])]), 'bad.txt');
    assert.equal(up.status, 422, JSON.stringify(up.body));
    assert.match(up.body.detail, /not valid UTF-8/);
    assert.deepEqual(snapshot().decodes, before.decodes);
  });
});

test('without worker threads the text is decoded on the event loop (counted), and still stored from its own bytes', async () => {
  const app = await startApp({ workers: '0' });
  try {
    const before = snapshot();
    const file = Buffer.concat([BOM, Buffer.from(TEXT)]);
    const up = await upload(app, file, 'inline.txt');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.deepEqual(mainThreadDecodes, { files: before.decodes.files + 1, bytes: before.decodes.bytes + file.length });
    assert.deepEqual(encodedText, before.encoded);
    await checkStored(app, up.body.name, TEXT);
  } finally {
    await app.close();
  }
});

describe('the text chef with an extraction pool: files go to the pool, a text does not', () => {
  let executor: WorkerPool;
  const pool: ExtractPoolOptions = { threads: 2, maxMs: 30_000, maxQueue: 4, memoryMb: 512 };
  before(async () => {
    executor = new WorkerPool({ threads: 1 });
    await executor.ready;
  });
  after(async () => {
    await executor.close();
    await closeExtractPools();
  });

  test('a file is decoded in the pool (one task, no main-thread decode); a text is given back here (no task)', async () => {
    const registry = await discover();
    const chef = registry.get('chef', 'text')!;
    const lanes = extractPool(pool).started;
    const decodes = { ...mainThreadDecodes };
    const file = await runChef(chef, {}, { bytes: Buffer.from(TEXT), filename: 'a.txt' }, { executor, pool });
    assert.equal(file.text, TEXT);
    assert.equal(file.utf8From, 0);
    assert.equal(file.codePoints, [...TEXT].length);
    assert.equal(lanes.any + lanes.small, 1);
    assert.deepEqual(mainThreadDecodes, decodes);
    const text = await runChef(chef, {}, { text: TEXT }, { executor, pool });
    assert.equal(text.text, TEXT);
    assert.equal(text.utf8From, undefined, 'a text has no file bytes to store');
    assert.equal(lanes.any + lanes.small, 1, 'no pool task for a text');
  });
});
