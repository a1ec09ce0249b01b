/**
 * A file read by reference never parses its stored structure on the event loop: an upload whose
 * structure is several megabytes of JSON is chunked, processed and run through a pipeline by
 * `file`, on both file stores (the data folder and PostgreSQL), while every JSON.parse on this
 * thread (the server's main thread: the app runs in this process) is counted; the upload itself
 * stringifies none of it here (the extraction worker makes its JSON). The structure's
 * bytes go to the worker as they were stored, and the chunks still carry the headings it holds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parsedStructures } from '../kernel/engine/docs.js';
import type { FileStore } from '../service/files/store.js';
import { startApp, type TestApp } from './helpers/app.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const HEADINGS = 80_000;
/** 80,000 headings, each with a line of text: about 1.6 MB of markdown, whose structure is about 5 MB of JSON. */
const MARKDOWN = Array.from({ length: HEADINGS }, (_, i) => `# Section ${i}\nbody ${i}\n`).join('');
const STRUCTURE_MIN_BYTES = 4 * 1024 * 1024;
/** What this thread may JSON.parse for one request: its small body, never the structure. */
const MAIN_PARSE_MAX_CHARS = 4 * 1024;

/** Characters of every string JSON.parse'd on this thread while `work` runs. */
async function parsedDuring<T>(work: () => Promise<T>): Promise<{ result: T; chars: number; largest: number }> {
  const parse = JSON.parse;
  let chars = 0;
  let largest = 0;
  JSON.parse = function (this: unknown, text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) {
    const n = String(text).length;
    chars += n;
    largest = Math.max(largest, n);
    return parse.call(JSON, text, reviver);
  } as typeof JSON.parse;
  try {
    const result = await work();
    return { result, chars, largest };
  } finally {
    JSON.parse = parse;
  }
}

/** A request whose answer is read as bytes (parsed by the test only after counting stops). */
async function post(app: TestApp, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(app.url + path, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, text: Buffer.from(await res.arrayBuffer()).toString('utf8') };
}

let postgres: TestPostgres;
before(async () => (postgres = await startPostgres()));
after(() => postgres?.close());

const backends = [
  { name: 'data folder', flags: async (): Promise<Record<string, string>> => ({}) },
  { name: 'PostgreSQL', flags: async (): Promise<Record<string, string>> => ({ 'database-url': await postgres.createDatabase() }) },
];

for (const backend of backends) {
  describe(`a file with megabytes of structure, by reference: ${backend.name}`, () => {
    let app: TestApp;
    let name: string;
    let uploadStringified = 0;
    before(async () => {
      app = await startApp({ workers: '1', ...(await backend.flags()) });
      const form = new FormData();
      form.append('file', new Blob([MARKDOWN], { type: 'text/markdown' }), 'sections.md');
      // Every JSON.stringify on this thread during the upload: the structure is made into JSON in the extraction worker.
      const stringify = JSON.stringify;
      JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
        const out = stringify(...args);
        uploadStringified = Math.max(uploadStringified, out?.length ?? 0);
        return out;
      }) as typeof JSON.stringify;
      let res: Response;
      try {
        res = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form });
      } finally {
        JSON.stringify = stringify;
      }
      const body = (await res.json()) as { name: string; format: string };
      assert.equal(res.status, 201, JSON.stringify(body));
      assert.equal(body.format, 'markdown');
      name = body.name;
      const stored = await app.booted.deps.services.files.structureJson(name);
      assert.ok(stored && stored.byteLength >= STRUCTURE_MIN_BYTES, `the stored structure is ${stored?.byteLength} bytes`);
    });
    after(() => app?.close());

    const file = () => ({ type: 'document', content: name });
    const checkParsed = (what: string, p: { chars: number; largest: number }) => {
      assert.ok(p.largest <= MAIN_PARSE_MAX_CHARS, `${what}: a string of ${p.largest} characters was JSON.parse'd on the main thread`);
      assert.ok(p.chars <= 4 * MAIN_PARSE_MAX_CHARS, `${what}: ${p.chars} characters JSON.parse'd on the main thread`);
    };

    test('the upload stores the structure as the JSON its extraction worker made: nothing of it stringified on the main thread', () => {
      assert.ok(uploadStringified <= MAIN_PARSE_MAX_CHARS, `a string of ${uploadStringified} characters was stringified on the main thread`);
    });

    test('POST /v1/chunk/{chunker} by file: chunks carry the stored headings; the main thread parses none of the structure', async () => {
      const before = parsedStructures.documents;
      const p = await parsedDuring(() => post(app, '/v1/chunk/token', { file: file(), chunk_size: 4096 }));
      assert.equal(p.result.status, 200, p.result.text.slice(0, 300));
      checkParsed('chunk', p);
      assert.equal(parsedStructures.documents, before, 'the runner parsed no structure on this thread');
      const chunks = JSON.parse(p.result.text) as { start_index: number; end_index: number; metadata?: { headings?: string[] } }[];
      assert.ok(chunks.length > 10);
      for (const c of chunks) assert.equal(c.metadata?.headings?.length, 1, JSON.stringify(c.metadata));
      // The last chunk's heading is one of the last sections: the structure came whole.
      const last = Number(chunks.at(-1)!.metadata!.headings![0]!.replace('Section ', ''));
      assert.ok(last > HEADINGS - 200, `last heading ${last}`);
    });

    test('POST /v1/process/markdown by file answers the stored document; its structure is parsed in the worker', async () => {
      const p = await parsedDuring(() => post(app, '/v1/process/markdown', { file: file() }));
      assert.equal(p.result.status, 200, p.result.text.slice(0, 300));
      checkParsed('process', p);
      const doc = JSON.parse(p.result.text) as { text: string; structure: { headings: unknown[] } };
      assert.equal(doc.text, MARKDOWN);
      assert.equal(doc.structure.headings.length, HEADINGS);
    });

    test('a pipeline run by file, as JSON and as NDJSON, parses none of the structure on the main thread', async () => {
      const created = await app.post('/v1/pipelines', { name: 'sections', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 4096 } }] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const json = await parsedDuring(() => post(app, `/v1/pipelines/${created.body.id}/execute`, { file: file() }));
      assert.equal(json.result.status, 200, json.result.text.slice(0, 300));
      checkParsed('pipeline', json);
      const ndjson = await parsedDuring(() => post(app, `/v1/pipelines/${created.body.id}/execute`, { file: file() }, { accept: 'application/x-ndjson' }));
      assert.equal(ndjson.result.status, 200, ndjson.result.text.slice(0, 300));
      checkParsed('pipeline NDJSON', ndjson);
      const chunks = JSON.parse(json.result.text) as { metadata?: { headings?: string[] } }[];
      assert.ok(chunks.length > 10 && chunks.every((c) => c.metadata?.headings?.length === 1));
    });
  });
}
