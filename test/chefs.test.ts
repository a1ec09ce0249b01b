/**
 * The chef kind end to end: uploads choose a chef from the manifests alone (a dropped-in folder
 * adds a format with no server change), the form field `chef` names one, an unknown binary type
 * is a 415 listing the chefs, and the chunks of a processed document carry their heading path,
 * block kinds and pages, in every entry point (chunk by file, pipelines, jobs).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { structureMetadata } from '../kernel/chef/annotate.js';
import { emptyStructure } from '../kernel/chef/document.js';
import { FIXTURES_DIR } from '../scripts/make-fixtures.js';
import { startApp, type TestApp } from './helpers/app.js';
import { jobResults, submitJob, waitForJob } from './helpers/jobs.js';
import { sliceIn } from './helpers/units.js';

/** A plugins directory with `rot13`, a chef for `.rot13` files that no server code knows. */
function rot13ChefDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-chef-'));
  mkdirSync(join(dir, 'rot13'));
  writeFileSync(
    join(dir, 'rot13', 'index.mjs'),
    `export default { name: 'rot13', kind: 'chef', summary: 'ROT13 files, decoded; each line starting "= " is a heading.', extras: [],
      extensions: ['.rot13'], mediaTypes: ['text/x-rot13'],
      config: { type: 'object', properties: {} },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'rot13', 'impl.mjs'),
    `const rot = (s) => s.replace(/[a-z]/gi, (c) => String.fromCharCode((c <= 'Z' ? 65 : 97) + ((c.toLowerCase().charCodeAt(0) - 97 + 13) % 26)));
    export const create = () => ({ process(doc) {
      const text = rot(doc.text ?? new TextDecoder().decode(doc.bytes));
      const headings = [...text.matchAll(/^= (.*)$/gm)].map((m) => ({ level: 1, text: m[1], start: m.index, end: m.index + m[0].length }));
      return { text, structure: { headings, tables: [], code: [], images: [], pages: [] }, metadata: { rot: 13 } };
    } });`,
  );
  return dir;
}

let app: TestApp;
let plugins: string;
before(async () => {
  plugins = rot13ChefDir();
  app = await startApp({ 'plugins-dir': plugins });
});
after(async () => {
  await app.close();
  rmSync(plugins, { recursive: true, force: true });
});

async function upload(content: string | Uint8Array, filename: string, type = '', fields: Record<string, string> = {}) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([content], type ? { type } : {}), filename);
  const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form });
  return { status: res.status, body: (await res.json()) as any };
}
const ref = (name: string) => ({ type: 'document', content: name });

describe('uploads pick their chef', () => {
  test('a chef dropped into --plugins-dir reads its format: upload, then chunks by file carry its headings', async () => {
    const up = await upload('= Vageb\nURYYB jbeyq.\n= Frpbaq\nZber grkg urer.\n', 'notes.rot13');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.format, 'rot13');
    const text = (await app.request('GET', `/v1/files/${up.body.name}/text`)).body.text;
    assert.equal(text, '= Intro\nHELLO world.\n= Second\nMore text here.\n');
    const chunks = (await app.post('/v1/chunk/token', { file: ref(up.body.name), chunk_size: 16 })).body as {
      start_index: number;
      metadata: { headings: string[] };
    }[];
    // 16-character windows start at 0, 16 and 32; "= Second" starts at 21.
    assert.deepEqual(
      chunks.map((c) => [c.start_index, c.metadata.headings]),
      [
        [0, ['Intro']],
        [16, ['Intro']],
        [32, ['Second']],
      ],
    );
    const processed = await app.post('/v1/process/rot13', { text: '= Uv' });
    assert.equal(processed.status, 200);
    assert.deepEqual(processed.body.structure.headings, [{ level: 1, text: 'Hi', start_index: 0, end_index: 4 }]);
  });

  test('GET /v1/plugins lists the chefs with the files they read', async () => {
    const chefs = (
      (await app.request('GET', '/v1/plugins')).body as {
        kind: string;
        name: string;
        route: string;
        reads?: { extensions: string[]; media_types: string[]; bytes_only: boolean };
      }[]
    ).filter((p) => p.kind === 'chef');
    assert.deepEqual(chefs.map((c) => c.name).sort(), ['docx', 'html', 'markdown', 'pdf', 'rot13', 'table', 'text']);
    const pdf = chefs.find((c) => c.name === 'pdf')!;
    assert.equal(pdf.route, '/v1/process/pdf');
    assert.deepEqual(pdf.reads, { extensions: ['.pdf'], media_types: ['application/pdf', 'application/x-pdf'], bytes_only: true });
  });

  test('source code is read by the text chef (by extension, by text/x-python, or sniffed as UTF-8)', async () => {
    const code = 'def hello():\n    return "🦛"\n';
    for (const [name, type] of [
      ['hello.py', 'text/x-python'],
      ['hello.py', ''],
      ['Makefile', 'application/octet-stream'],
      ['script', 'text/x-python'],
    ]) {
      const up = await upload(code, name!, type);
      assert.equal(up.status, 201, `${name} ${type}: ${JSON.stringify(up.body)}`);
      assert.equal(up.body.format, 'text');
    }
  });

  test('the form field chef names the chef; an unknown one is a 404 naming the closest', async () => {
    const up = await upload('# T\n\ntext\n', 'notes.txt', 'text/plain', { chef: 'markdown' });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    assert.equal(up.body.format, 'markdown');
    const bad = await upload('x', 'notes.txt', 'text/plain', { chef: 'markdwn' });
    assert.equal(bad.status, 404);
    assert.match(bad.body.detail, /Unknown chef 'markdwn'.*'markdown'/);
  });

  test('an unknown binary type is a 415 listing the chefs', async () => {
    const res = await upload(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 0]), 'photo.png', 'image/png');
    assert.equal(res.status, 415);
    assert.match(res.body.detail, /no chef reads it.*form field 'chef'.*markdown \(\.md.*pdf \(\.pdf\).*text \(\.txt.*rot13 \(\.rot13\)/);
    const blob = await upload(new Uint8Array([0, 1, 2, 255]), 'blob.bin');
    assert.equal(blob.status, 415);
  });
});

describe('structure reaches the chunks', () => {
  const MD =
    '# Install\r\n\r\nIntro.\r\n\r\n## From source\r\n\r\n```sh\r\nmake 🦛\r\n```\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\n# Use\r\n\r\nRun it.\r\n';

  test('chunking an uploaded markdown file by reference: headings and blocks on each chunk, offsets on the text in every unit', async () => {
    const up = await upload(MD, 'readme.md', 'text/markdown');
    assert.equal(up.status, 201);
    for (const unit of ['codepoint', 'utf16', 'utf8'] as const) {
      const chunks = (await app.post('/v1/chunk/recursive', { file: ref(up.body.name), chunk_size: 20, offset_unit: unit })).body as {
        text: string;
        start_index: number;
        end_index: number;
        metadata: { headings: string[]; blocks: string[] };
      }[];
      for (const c of chunks) assert.equal(sliceIn(MD, c.start_index, c.end_index, unit), c.text);
      const make = chunks.find((c) => c.text.includes('make'))!;
      assert.deepEqual(make.metadata.headings, ['Install', 'From source']);
      assert.ok(make.metadata.blocks.includes('code'));
      assert.deepEqual(chunks.find((c) => c.text.includes('Run it'))!.metadata.headings, ['Use']);
    }
    // The same text sent as text is a plain text: Chonkie-compatible chunks, no metadata added.
    const plain = (await app.post('/v1/chunk/recursive', { text: MD, chunk_size: 20 })).body as object[];
    assert.ok(plain.every((c) => !('metadata' in c)));
  });

  test('chunks of a PDF carry their page numbers', async () => {
    const up = await upload(new Uint8Array(readFileSync(join(FIXTURES_DIR, 'sample.pdf'))), 'sample.pdf', 'application/pdf');
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const chunks = (await app.post('/v1/chunk/token', { file: ref(up.body.name), chunk_size: 40 })).body as { text: string; metadata: { pages: number[] } }[];
    const pages = chunks.map((c) => c.metadata.pages);
    // The pdf chef reads files only, but answers the stored document of a PDF it read at upload.
    const doc = await app.post('/v1/process/pdf', { file: ref(up.body.name) });
    assert.equal(doc.status, 200, JSON.stringify(doc.body));
    assert.ok(doc.body.structure.pages.length > 1);
    assert.deepEqual(doc.body.structure.pages[0], { number: 1, start_index: 0, end_index: doc.body.text.indexOf('\n\f\n') });
    assert.deepEqual(pages[0], [1]);
    assert.ok(pages.at(-1)!.at(-1)! > 1, JSON.stringify(pages));
    for (const c of chunks) if (c.text.includes('\f')) assert.ok(c.metadata.pages.length >= 2, 'a chunk across a page break names both pages');
  });

  test('a job keeps the metadata in its NDJSON results', async () => {
    const steps = [
      { type: 'process', chef: 'markdown' },
      { type: 'chunk', chunker: 'recursive', config: { chunk_size: 20 } },
    ];
    const sub = await submitJob(app.url, { steps, documents: [{ id: 'readme', text: MD }] });
    assert.equal(sub.status, 202, JSON.stringify(sub.body));
    assert.equal((await waitForJob(app.url, sub.body.id)).status, 'done');
    const { lines } = await jobResults(app.url, sub.body.id);
    const chunks = lines[0]!.chunks as unknown as { text: string; metadata: { headings: string[] } }[];
    assert.deepEqual(chunks.find((c) => c.text.includes('Run it'))!.metadata.headings, ['Use']);
    assert.deepEqual(chunks.find((c) => c.text.includes('Intro'))!.metadata.headings, ['Install']);
  });
});

describe('structureMetadata', () => {
  test('block kinds: text, table, code, in that order; only the kinds the structure has', () => {
    const text = 'aa |t| bb ```c``` ';
    const s = emptyStructure();
    s.tables.push({ start: 3, end: 6 });
    s.code.push({ start: 10, end: 17, language: null });
    const spans = [
      { start: 0, end: 3, tokenCount: 1 },
      { start: 3, end: 6, tokenCount: 1 },
      { start: 3, end: 18, tokenCount: 1 },
      { start: 10, end: 18, tokenCount: 1 },
    ];
    assert.deepEqual(
      structureMetadata(text, s, spans).map((m) => m?.blocks),
      [['text'], ['table'], ['text', 'table', 'code'], ['code']],
    );
    assert.deepEqual(structureMetadata(text, emptyStructure(), spans), [undefined, undefined, undefined, undefined]);
  });
});

describe('through the worker pool', () => {
  let pooled: TestApp;
  before(async () => (pooled = await startApp({ workers: '1' })));
  after(() => pooled.close());
  const DOC = ('# Big\n\n' + 'word '.repeat(40) + '\n\n## Sub\n\n' + 'more text here. '.repeat(30) + '\n\n').repeat(400);

  test('a large pipeline body (parsed and run in a worker) and a large file by reference (chunked in the pool) keep the structure', async () => {
    const made = await pooled.post('/v1/pipelines', {
      name: 'md',
      steps: [
        { type: 'process', chef: 'markdown' },
        { type: 'chunk', chunker: 'recursive', config: { chunk_size: 64 } },
      ],
    });
    const run = await pooled.post(`/v1/pipelines/${made.body.id}/execute`, { text: [DOC, DOC] });
    assert.equal(run.status, 200, JSON.stringify(run.body).slice(0, 300));
    for (const list of run.body as { text: string; metadata: { headings: string[] } }[][]) {
      assert.deepEqual(list[0]!.metadata.headings, ['Big']);
      assert.deepEqual(list.find((c) => c.text.includes('more text'))!.metadata.headings, ['Big', 'Sub']);
    }
    const form = new FormData();
    form.append('file', new Blob([DOC], { type: 'text/markdown' }), 'big.md');
    const up = (await (await fetch(`${pooled.url}/v1/files`, { method: 'POST', body: form })).json()) as { name: string };
    const byFile = await pooled.post('/v1/chunk/recursive', { file: ref(up.name), chunk_size: 64 });
    assert.equal(byFile.status, 200);
    const chunks = byFile.body as { text: string; metadata: { headings: string[] } }[];
    assert.deepEqual(chunks.find((c) => c.text.includes('more text'))!.metadata.headings, ['Big', 'Sub']);
  });

  test('NDJSON: a large pipeline body with a process step streams one line per text, each chunk with its headings; a file run by a pipeline keeps its structure', async () => {
    const made = await pooled.post('/v1/pipelines', {
      name: 'md-lines',
      steps: [
        { type: 'process', chef: 'markdown' },
        { type: 'chunk', chunker: 'recursive', config: { chunk_size: 64 } },
      ],
    });
    const res = await fetch(`${pooled.url}/v1/pipelines/${made.body.id}/execute`, {
      method: 'POST',
      headers: { accept: 'application/x-ndjson', 'content-type': 'application/json' },
      body: JSON.stringify({ text: [DOC, DOC] }),
    });
    assert.equal(res.status, 200);
    const [head, ...lines] = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { total?: number; index: number; chunks: { text: string; metadata: { headings: string[] } }[] });
    assert.deepEqual(head, { total: 2 });
    assert.deepEqual(lines.map((l) => l.index).sort(), [0, 1]);
    for (const { chunks } of lines) {
      assert.deepEqual(chunks[0]!.metadata.headings, ['Big']);
      assert.deepEqual(chunks.find((c) => c.text.includes('more text'))!.metadata.headings, ['Big', 'Sub']);
    }
    // Without a process step, a file is chunked with the structure its chef found at upload.
    const plain = await pooled.post('/v1/pipelines', { name: 'chunk-only', steps: [{ type: 'chunk', chunker: 'recursive', config: { chunk_size: 64 } }] });
    const form = new FormData();
    form.append(
      'file',
      new Blob([`# Top\n\n${'Some words. '.repeat(20)}\n\n## Low\n\n${'More words here. '.repeat(20)}\n`], { type: 'text/markdown' }),
      'small.md',
    );
    const up = (await (await fetch(`${pooled.url}/v1/files`, { method: 'POST', body: form })).json()) as { name: string };
    const run = await pooled.post(`/v1/pipelines/${plain.body.id}/execute`, { file: ref(up.name) });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const chunks = run.body as { text: string; metadata?: { headings: string[] } }[];
    assert.ok(chunks.length > 1);
    assert.deepEqual(chunks[0]!.metadata!.headings, ['Top']);
    assert.deepEqual(chunks.at(-1)!.metadata!.headings, ['Top', 'Low']);
  });
});
