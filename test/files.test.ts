/**
 * Files (POST /v1/files and `file` instead of `text`): upload → chunk by file for every chunker,
 * offsets against GET /v1/files/{name}/text, the store's cap, quota and expiry, names that are
 * never paths, multipart edge cases, auth.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { DOCX_BLOCKS, FIXTURES_DIR, PDF_PAGES } from '../scripts/make-fixtures.js';
import { PAGE_SEPARATOR } from '../plugins/pdf/pdf.js';
import { INLINE_BODY_MAX_BYTES } from '../server/middleware/body.js';
import { DataDirFileStore, STALE_TMP_MS } from '../service/files/data-dir.js';
import { newFileName, sanitizeFilename, type FileRecord, type FileStore } from '../service/files/store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { withEnv } from './helpers/env.js';
import { startAppWithFakeLlm } from './helpers/fake-llm.js';
import { FIXTURES } from './helpers/fixtures.js';
import { sliceIn } from './helpers/units.js';

const registry = await discover();
const UNITS = ['codepoint', 'utf16', 'utf8'] as const;
/** One text that stresses every offset unit: CJK, emoji, CRLF and repeated text. */
const TEXT = [FIXTURES.ascii, FIXTURES.crlf, FIXTURES.cjk, FIXTURES.emoji, FIXTURES.repeated].join('\n\n');
const NAME = /^file_[0-9a-f]{32}$/;

async function upload(app: TestApp, content: string | Uint8Array, filename = 'doc.md', type = 'text/markdown', headers: Record<string, string> = {}) {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), filename);
  const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form, headers });
  return { status: res.status, body: (await res.json()) as any };
}

/** A raw multipart body, for shapes FormData cannot make. */
async function rawUpload(app: TestApp, body: string, contentType: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body, headers: { 'content-type': contentType, ...headers } });
  return { status: res.status, body: (await res.json()) as any };
}

const ref = (name: string) => ({ type: 'document', content: name });

describe('upload, then chunk by file', () => {
  let app: TestApp;
  let file: any;
  // Slumber runs against a local fake LLM, configured as an operator would (as in the conformance suite).
  before(async () => {
    app = await startAppWithFakeLlm();
    const res = await upload(app, TEXT, '../../some/dir/notes.md');
    assert.equal(res.status, 201, JSON.stringify(res.body));
    file = res.body;
  });
  after(() => app.close());

  test('201 with an opaque name, the same id under every field the clients read, and the facts of the file', () => {
    assert.match(file.name, NAME);
    assert.equal(file.id, file.name);
    assert.equal(file.document, file.name);
    // The TypeScript client takes the first string among document, filename, name, id: it must be the id.
    const first = ['document', 'filename', 'name', 'id'].map((k) => file[k]).find((v) => typeof v === 'string');
    assert.equal(first, file.name);
    assert.equal(file.filename, 'notes.md', 'directories are dropped from the client name');
    assert.equal(file.size, Buffer.byteLength(TEXT));
    assert.equal(file.format, 'markdown');
    assert.equal(file.text_chars, [...TEXT].length);
    assert.equal(Date.parse(file.expires_at) - Date.parse(file.created_at), app.settings.fileExpirySeconds * 1000);
  });

  test('GET metadata and GET text give back the file and exactly its text', async () => {
    const meta = await app.request('GET', `/v1/files/${file.name}`);
    assert.equal(meta.status, 200);
    assert.deepEqual(meta.body, file);
    const text = await app.request('GET', `/v1/files/${file.name}/text`);
    assert.equal(text.status, 200);
    assert.deepEqual(text.body, { name: file.name, text: TEXT });
  });

  test('the data directory holds only server-made names, never the client path', () => {
    const entries = readdirSync(join(app.settings.dataDir, 'files'));
    assert.deepEqual(entries, [file.name]);
  });

  for (const plugin of registry.list('chunker')) {
    test(`chunker ${plugin.name}: by file = by text, offsets exact against GET text in every unit`, async () => {
      if (plugin.missing.length) {
        const res = await app.post(plugin.route, { file: ref(file.name) });
        assert.equal(res.status, 501, 'a missing extra still answers 501 by file');
        return;
      }
      const { text } = (await app.request('GET', `/v1/files/${file.name}/text`)).body;
      for (const unit of UNITS) {
        const byFile = await app.post(plugin.route, { file: ref(file.name), offset_unit: unit });
        assert.equal(byFile.status, 200, `${unit}: ${JSON.stringify(byFile.body)}`);
        const byText = await app.post(plugin.route, { text, offset_unit: unit });
        assert.deepEqual(byFile.body, byText.body, `${unit}: chunking by file differs from chunking its text`);
        const chunks = byFile.body as Chunk[];
        assert.ok(chunks.length > 0);
        for (const c of chunks) assert.equal(sliceIn(text, c.start_index, c.end_index, unit), c.text, `${unit}: ${JSON.stringify(c)}`);
      }
    });
  }

  test('a pipeline execute takes a file too', async () => {
    const created = await app.post('/v1/pipelines', { name: 'by-file', steps: [{ type: 'chunk', chunker: 'sentence', config: { chunk_size: 32 } }] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const byFile = await app.post(`/v1/pipelines/${created.body.id}/execute`, { file: ref(file.name) });
    assert.equal(byFile.status, 200, JSON.stringify(byFile.body));
    const byText = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: TEXT });
    assert.deepEqual(byFile.body, byText.body);
    const both = await app.post(`/v1/pipelines/${created.body.id}/execute`, { text: 'x', file: ref(file.name) });
    assert.equal(both.status, 422);
  });

  test('text and file together → 422; a wrong type or shape → 422 at the field', async () => {
    const both = await app.post('/v1/chunk/token', { text: 'hello', file: ref(file.name) });
    assert.equal(both.status, 422);
    assert.equal(both.body.code, 'VALIDATION');
    assert.match(both.body.detail[0].msg, /both text and file/);
    const wrongType = await app.post('/v1/chunk/token', { file: { type: 'url', content: file.name } });
    assert.equal(wrongType.status, 422);
    assert.deepEqual(wrongType.body.detail[0].loc, ['body', 'file', 'type']);
    for (const bad of [file.name, null, [file.name], { type: 'document' }, { type: 'document', content: 7 }]) {
      const res = await app.post('/v1/chunk/token', { file: bad });
      assert.equal(res.status, 422, JSON.stringify(bad));
      assert.equal(res.body.code, 'VALIDATION');
    }
  });

  test('an unknown file → 404 that says to upload first; a name that looks like a path is unknown', async () => {
    for (const name of [newFileName(), '../../etc/passwd', '/etc/passwd', file.name.toUpperCase(), `${file.name}/../${file.name}`, 'C:\\Windows\\win.ini']) {
      const res = await app.post('/v1/chunk/recursive', { file: ref(name) });
      assert.equal(res.status, 404, name);
      assert.equal(res.body.code, 'NOT_FOUND');
      assert.match(res.body.detail, /upload it first with POST \/v1\/files/);
    }
    for (const path of ['..%2F..%2Fetc%2Fpasswd', '%2Fetc%2Fpasswd', '..', 'file_..']) {
      for (const suffix of ['', '/text']) {
        const res = await app.request('GET', `/v1/files/${path}${suffix}`);
        assert.equal(res.status, 404, path + suffix);
      }
      assert.equal((await app.request('DELETE', `/v1/files/${path}`)).status, 404);
    }
  });

  test('the OpenAPI document shows file as the alternative to text, and the upload as multipart', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    for (const plugin of registry.list('chunker')) {
      const ref = doc.paths[plugin.route].post.requestBody.content['application/json'].schema.$ref as string;
      const schema = doc.components.schemas[ref.split('/').pop()!];
      assert.equal(schema.properties.file.properties.type.const, 'document', plugin.name);
      assert.deepEqual(schema.oneOf, [{ required: ['text'] }, { required: ['file'] }]);
      assert.ok(!(schema.required ?? []).includes('text'));
      assert.ok(doc.paths[plugin.route].post.responses['404'], `${plugin.name}: 404 undocumented`);
    }
    assert.ok(doc.components.schemas.PipelineExecuteRequest.properties.file);
    assert.ok(doc.paths['/v1/files'].post.requestBody.content['multipart/form-data'].schema.properties.file);
    assert.match(doc.paths['/v1/files/{name}/text'].get.summary, /offsets refer to/);
  });

  test('GET /v1/files lists the files newest first, a page at a time through Link; a foreign cursor → 422', async () => {
    const names: string[] = [];
    for (const i of [1, 2]) names.push((await upload(app, `Listed ${i}.`, `l${i}.txt`, 'text/plain')).body.name);
    const first = await app.request('GET', '/v1/files?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body.map((f: { name: string }) => f.name).sort(), [...names].sort(), 'the two newest');
    assert.deepEqual(first.body[0], (await app.request('GET', `/v1/files/${first.body[0].name}`)).body, 'each as GET /v1/files/{name} shows it');
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    assert.ok(next, 'more follow');
    const rest = await app.request('GET', next);
    assert.ok(rest.body.some((f: { name: string }) => f.name === file.name));
    assert.ok(!rest.body.some((f: { name: string }) => names.includes(f.name)), 'none twice');
    const bad = await app.request('GET', '/v1/files?cursor=nope');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['query', 'cursor']);
  });

  test('DELETE removes the file: then 404 everywhere', async () => {
    const res = await upload(app, 'Short lived. Gone soon.', 'gone.txt', 'text/plain');
    const { name } = res.body;
    assert.equal((await app.request('DELETE', `/v1/files/${name}`)).status, 204);
    assert.equal((await app.request('GET', `/v1/files/${name}`)).status, 404);
    assert.equal((await app.request('GET', `/v1/files/${name}/text`)).status, 404);
    assert.equal((await app.post('/v1/chunk/token', { file: ref(name) })).status, 404);
    assert.equal((await app.request('DELETE', `/v1/files/${name}`)).status, 404);
    assert.ok(!readdirSync(join(app.settings.dataDir, 'files')).includes(name));
  });
});

describe('multipart edge cases', () => {
  let app: TestApp;
  before(async () => (app = await startApp()));
  after(() => app.close());
  const B = 'XyZboundary';
  const part = (headers: string, body: string) => `--${B}\r\n${headers}\r\n\r\n${body}\r\n`;
  const form = `multipart/form-data; boundary=${B}`;

  test('no file part, a part of another name, a plain field named file → 422 saying what to send', async () => {
    const none = await rawUpload(app, part('Content-Disposition: form-data; name="other"', 'x') + `--${B}--\r\n`, form);
    assert.equal(none.status, 422);
    assert.match(none.body.detail[0].msg, /No part named 'file'/);
    const empty = await rawUpload(app, `--${B}--\r\n`, form);
    assert.equal(empty.status, 422);
    const other = await rawUpload(
      app,
      part('Content-Disposition: form-data; name="document"; filename="a.txt"\r\nContent-Type: text/plain', 'hello') + `--${B}--\r\n`,
      form,
    );
    assert.equal(other.status, 422);
    assert.match(other.body.detail[0].msg, /name it 'file'/);
    const field = await rawUpload(app, part('Content-Disposition: form-data; name="file"', 'hello') + `--${B}--\r\n`, form);
    assert.equal(field.status, 422);
    assert.match(field.body.detail[0].msg, /send it as a file/);
  });

  test('two file parts → 422; a text field beside the file is ignored', async () => {
    const file = (n: string) => part(`Content-Disposition: form-data; name="file"; filename="${n}.txt"\r\nContent-Type: text/plain`, `text ${n}`);
    const two = await rawUpload(app, file('a') + file('b') + `--${B}--\r\n`, form);
    assert.equal(two.status, 422);
    assert.match(two.body.detail[0].msg, /more than one file/);
    const withField = await rawUpload(app, part('Content-Disposition: form-data; name="purpose"', 'chunking') + file('a') + `--${B}--\r\n`, form);
    assert.equal(withField.status, 201, JSON.stringify(withField.body));
    assert.equal((await app.request('GET', `/v1/files/${withField.body.name}/text`)).body.text, 'text a');
  });

  test('a cut-off body → 422; no boundary, JSON or no Content-Type, a compressed body → 415', async () => {
    const cut = await rawUpload(app, `--${B}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello`, form);
    assert.equal(cut.status, 422, JSON.stringify(cut.body));
    assert.match(cut.body.detail[0].msg, /malformed/);
    for (const type of ['multipart/form-data', 'application/json', 'text/plain']) {
      const res = await rawUpload(app, '{"text": "hello"}', type);
      assert.equal(res.status, 415, type);
      assert.equal(res.body.code, 'UNSUPPORTED_MEDIA_TYPE');
      assert.match(res.body.detail, /multipart\/form-data/);
    }
    const gz = await rawUpload(app, part('Content-Disposition: form-data; name="file"; filename="a.txt"', 'x') + `--${B}--\r\n`, form, {
      'content-encoding': 'gzip',
    });
    assert.equal(gz.status, 415);
  });

  test('a format chunkd cannot read → 415 listing the formats; text that is not UTF-8 → 422', async () => {
    const exe = await upload(app, new Uint8Array([0x4d, 0x5a, 0x90, 0]), 'tool.exe', 'application/octet-stream');
    assert.equal(exe.status, 415);
    assert.match(exe.body.detail, /\.txt/);
    const latin1 = await upload(app, new Uint8Array([0x63, 0x61, 0x66, 0xe9]), 'cafe.txt', 'text/plain');
    assert.equal(latin1.status, 422);
    assert.match(JSON.stringify(latin1.body.detail), /UTF-8/);
  });

  test('the client file name is sanitized, never used as a path', () => {
    assert.equal(sanitizeFilename('../../etc/passwd'), 'passwd');
    assert.equal(sanitizeFilename('C:\\Users\\me\\report.md'), 'report.md');
    assert.equal(sanitizeFilename('a\u0000b\u202e.txt'), 'ab.txt');
    assert.equal(sanitizeFilename('dir/..'), null);
    assert.equal(sanitizeFilename(''), null);
    assert.equal(sanitizeFilename('x'.repeat(300) + '.txt')!.length, 255);
  });
});

describe('cap, quota and expiry', () => {
  test('a file over --max-file-bytes → 413 naming the setting; at the cap → 201', async () => {
    const app = await startApp({ 'max-file-bytes': '100' });
    try {
      const over = await upload(app, 'a'.repeat(101), 'big.txt', 'text/plain');
      assert.equal(over.status, 413);
      assert.equal(over.body.code, 'TOO_LARGE');
      assert.match(over.body.detail, /--max-file-bytes/);
      assert.equal((await upload(app, 'a'.repeat(100), 'ok.txt', 'text/plain')).status, 201);
      // A Content-Length far over the cap is refused before the body is read.
      const declared = await rawUpload(app, 'a'.repeat(100 + 2 * 1024 * 1024 + 1), 'multipart/form-data; boundary=x');
      assert.equal(declared.status, 413);
      assert.match(declared.body.detail, /--max-file-bytes/);
      assert.deepEqual(readdirSync(join(app.settings.dataDir, 'files')).length, 1, 'nothing of the refused file is kept');
    } finally {
      await app.close();
    }
  });

  test('--max-files: one more → 507 until one is deleted', async () => {
    const app = await startApp({ 'max-files': '2' });
    try {
      const a = await upload(app, 'one', 'a.txt', 'text/plain');
      assert.equal(a.status, 201);
      assert.equal((await upload(app, 'two', 'b.txt', 'text/plain')).status, 201);
      const third = await upload(app, 'three', 'c.txt', 'text/plain');
      assert.equal(third.status, 507);
      assert.equal(third.body.code, 'INSUFFICIENT_STORAGE');
      assert.match(third.body.detail, /--max-files/);
      assert.equal((await app.request('DELETE', `/v1/files/${a.body.name}`)).status, 204);
      assert.equal((await upload(app, 'three', 'c.txt', 'text/plain')).status, 201);
    } finally {
      await app.close();
    }
  });

  test('--max-files-bytes counts the file and its text; concurrent uploads cannot overshoot it', async () => {
    const app = await startApp({ 'max-files-bytes': '100' });
    try {
      // 30 bytes + 30 bytes of text each: one fits, a second does not.
      const results = await Promise.all(Array.from({ length: 4 }, (_, i) => upload(app, `${i}`.repeat(30), `${i}.txt`, 'text/plain')));
      assert.deepEqual(results.map((r) => r.status).sort(), [201, 507, 507, 507]);
      assert.match(results.find((r) => r.status === 507)!.body.detail, /--max-files-bytes/);
    } finally {
      await app.close();
    }
  });

  test('the quota is taken before extraction: at the quota, a file extraction would refuse is a 507, and a refused upload gives its room back', async () => {
    const app = await startApp({ 'max-files': '1' });
    try {
      // Not UTF-8: extraction would answer 422. At the quota, the 507 comes first: nothing was extracted.
      const notUtf8 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
      assert.equal((await upload(app, notUtf8, 'cafe.txt', 'text/plain')).status, 422, 'below the quota: extracted and refused');
      assert.equal((await upload(app, 'one', 'a.txt', 'text/plain')).status, 201, 'the refused upload gave its reservation back');
      const full = await upload(app, notUtf8, 'cafe.txt', 'text/plain');
      assert.equal(full.status, 507, JSON.stringify(full.body));
      assert.deepEqual(await app.booted.deps.services.files.usage(), { count: 1, bytes: 6 });
    } finally {
      await app.close();
    }
  });

  test('an expired file is gone (404 for metadata, text and chunking) and swept from disk', async () => {
    const app = await startApp({ 'file-expiry-seconds': '1' });
    try {
      const a = (await upload(app, 'Expires soon. Really.', 'a.txt', 'text/plain')).body;
      const b = (await upload(app, 'Expires too.', 'b.txt', 'text/plain')).body;
      assert.equal((await app.post('/v1/chunk/token', { file: ref(a.name) })).status, 200);
      const until = Date.parse(b.expires_at) + 50;
      while (Date.now() < until) await new Promise((r) => setTimeout(r, until - Date.now()));
      assert.equal((await app.request('GET', `/v1/files/${a.name}`)).status, 404);
      assert.equal((await app.request('GET', `/v1/files/${a.name}/text`)).status, 404);
      const chunk = await app.post('/v1/chunk/token', { file: ref(a.name) });
      assert.equal(chunk.status, 404);
      assert.match(chunk.body.detail, /upload it first/);
      const store = app.booted.deps.services.files;
      await store.sweep(); // the timer's work, done now
      assert.deepEqual(readdirSync(join(app.settings.dataDir, 'files')), []);
      assert.equal((await store.usage()).count, 0, 'expired files no longer count against the quota');
      assert.equal((await app.request('DELETE', `/v1/files/${b.name}`)).status, 404);
    } finally {
      await app.close();
    }
  });
});

test('the data-dir store keeps files across a restart and drops what a crash left half-written', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-files-'));
  try {
    const quota = { maxFiles: 10, maxBytes: 10_000 };
    const first = await DataDirFileStore.open(dir, quota);
    const record: FileRecord = {
      name: newFileName(),
      filename: 'a.txt',
      size: 5,
      format: 'text',
      text_chars: 5,
      created_at: new Date().toISOString(),
      expires_at: null,
    };
    await first.put(await first.reserve(record.name, 5), record, { bytes: Buffer.from('hello'), text: 'hello' });
    await first.close();
    const cutShort = join(dir, `.tmp-${newFileName()}`); // a put cut short, long ago
    mkdirSync(cutShort);
    const old = (Date.now() - STALE_TMP_MS - 60_000) / 1000;
    utimesSync(cutShort, old, old);
    const inFlight = `.tmp-${newFileName()}`; // another replica's put, still being written
    mkdirSync(join(dir, inFlight));
    mkdirSync(join(dir, newFileName())); // a folder without meta.json
    const second = await DataDirFileStore.open(dir, quota);
    assert.deepEqual(await second.get(record.name), record);
    assert.equal(await second.text(record.name), 'hello');
    assert.deepEqual(await second.usage(), { count: 1, bytes: 10 });
    assert.deepEqual(readdirSync(dir).sort(), [inFlight, record.name].sort());
    rmSync(join(dir, inFlight), { recursive: true });
    // Another process sharing the folder: what one puts or deletes, the other sees at once.
    const other = await DataDirFileStore.open(dir, quota);
    const more: FileRecord = { ...record, name: newFileName() };
    await other.put(await other.reserve(more.name, 4), more, { bytes: Buffer.from('more'), text: 'more' });
    assert.equal(await second.text(more.name), 'more');
    assert.equal(await other.delete(record.name), true);
    assert.equal(await second.get(record.name), undefined);
    assert.equal(await second.delete(record.name), false);
    await Promise.all([second.close(), other.close()]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('auth applies to every file route and to chunking by file', async () => {
  const app = await startApp({ 'api-keys': 'secret-key' });
  const key = { authorization: 'Bearer secret-key' };
  try {
    assert.equal((await upload(app, 'No key.', 'a.txt', 'text/plain')).status, 401);
    const ok = await upload(app, 'With a key. Second sentence.', 'a.txt', 'text/plain', key);
    assert.equal(ok.status, 201);
    const { name } = ok.body;
    for (const [method, path] of [
      ['GET', `/v1/files/${name}`],
      ['GET', `/v1/files/${name}/text`],
      ['DELETE', `/v1/files/${name}`],
    ] as const) {
      assert.equal((await app.request(method, path)).status, 401, `${method} ${path}`);
    }
    assert.equal((await app.post('/v1/chunk/token', { file: ref(name) })).status, 401);
    assert.equal((await app.request('POST', '/v1/chunk/token', { file: ref(name) }, key)).status, 200);
    assert.equal((await app.request('GET', `/v1/files/${name}/text`, undefined, key)).status, 200);
  } finally {
    await app.close();
  }
});

describe('a large body that names a file is read on the event loop, never handed to a worker as text', () => {
  let app: TestApp;
  let name: string;
  before(async () => {
    app = await startApp({ workers: '1' });
    name = (await upload(app, 'A short file. Two sentences.', 'a.txt', 'text/plain')).body.name;
  });
  after(() => app.close());

  test('large text with file → 422, also with the key spelled with escapes', async () => {
    const big = 'word '.repeat(INLINE_BODY_MAX_BYTES / 4);
    const both = await app.post('/v1/chunk/token', { text: big, file: ref(name) });
    assert.equal(both.status, 422, JSON.stringify(both.body).slice(0, 200));
    const escaped = `{"text": ${JSON.stringify(big)}, "\\u0066ile": ${JSON.stringify(ref(name))}}`;
    const res = await app.request('POST', '/v1/chunk/token', escaped);
    assert.equal(res.status, 422);
  });
});

describe('PDF, DOCX and HTML over HTTP: uploaded, extracted in a worker, chunked by file', () => {
  let app: TestApp;
  before(async () => (app = await startApp({ workers: '1' })));
  after(() => app.close());
  const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES_DIR, name)));
  const cases = [
    { file: 'sample.pdf', type: 'application/pdf', text: PDF_PAGES.map((page) => page.map((lines) => lines.join('\n')).join('\n\n')).join(PAGE_SEPARATOR) },
    { file: 'sample.docx', type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', text: DOCX_BLOCKS.map((b) => b.text).join('\n\n') },
  ];
  for (const c of cases) {
    test(`${c.file}: its text is what the fixture holds, and chunks slice it exactly`, async () => {
      const up = await upload(app, fixture(c.file), c.file, c.type);
      assert.equal(up.status, 201, JSON.stringify(up.body));
      const text = await app.request('GET', `/v1/files/${up.body.name}/text`);
      assert.equal(text.body.text, c.text);
      const res = await app.post('/v1/chunk/recursive', { file: ref(up.body.name), chunk_size: 64 });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(res.body.length > 1);
      for (const chunk of res.body as Chunk[]) assert.equal([...c.text].slice(chunk.start_index, chunk.end_index).join(''), chunk.text);
    });
  }
  test('an HTML upload keeps the body text and drops scripts', async () => {
    const up = await upload(app, '<html><head><script>var x = 1;</script></head><body><h1>Title</h1><p>Body text.</p></body></html>', 'page.html', 'text/html');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.format, 'html');
    assert.equal((await app.request('GET', `/v1/files/${up.body.name}/text`)).body.text, 'Title\n\nBody text.');
  });
});

test('--max-text-chars bounds extraction itself, and its 413 names the setting', async () => {
  const app = await startApp({ workers: '0', 'max-text-chars': '40' });
  try {
    const up = await upload(app, new Uint8Array(readFileSync(join(FIXTURES_DIR, 'sample.pdf'))), 'sample.pdf', 'application/pdf');
    assert.equal(up.status, 413, JSON.stringify(up.body));
    assert.equal(up.body.code, 'TOO_LARGE');
    // The extractor stops at the limit (it says so), rather than extracting everything and the route refusing it after.
    assert.match(up.body.detail, /more text characters than this server extracts \(40, limit --max-text-chars, CHUNKD_MAX_TEXT_CHARS\)/);
    assert.doesNotMatch(up.body.detail, /maxTextChars/);
  } finally {
    await app.close();
  }
});

test('a format whose extra is not installed → 501 at upload with the install command', async () => {
  const app = await startApp();
  try {
    const up = await withEnv({ CHUNKD_HIDE_PACKAGES: 'pdfjs-dist' }, () =>
      upload(app, new Uint8Array(readFileSync(join(FIXTURES_DIR, 'sample.pdf'))), 'sample.pdf', 'application/pdf'),
    );
    assert.equal(up.status, 501, JSON.stringify(up.body));
    assert.equal(up.body.code, 'MISSING_EXTRA');
    assert.match(up.body.detail, /npm install pdfjs-dist/);
  } finally {
    await app.close();
  }
});
