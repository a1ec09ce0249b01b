/**
 * The slug-based pipeline API (/v1/pipeline, singular) as Chonkie's cloud clients drive it (bodies
 * and reads per their source), on the store and checks of /v1/pipelines: each API sees, runs and
 * deletes what the other made.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { WorkerPool } from '../kernel/engine/index.js';
import { RESERVED_NAMES } from '../wire/slug.js';
import { startApp, type TestApp } from './helpers/app.js';
import { withTagPluginApp } from './helpers/tag-plugin.js';

let app: TestApp;
withTagPluginApp((a) => (app = a));

beforeEach(async () => {
  for (let page; (page = (await app.request('GET', '/v1/pipelines')).body).length;) for (const p of page) await app.request('DELETE', `/v1/pipelines/${p.id}`);
});

const defaults = (kind: 'chunker' | 'refinery', name: string) =>
  Object.fromEntries(
    Object.entries(app.booted.deps.registry.get(kind, name).manifest.config.properties).map(([k, f]) => [k, (f as { default: unknown }).default]),
  );

/** The body Chonkie's Python client sends on its first run: `Pipeline(slug, description).chunk_with(...).refine_with(...)`, description None when not given. */
const pyCreate = (slug: string, steps: Record<string, unknown>[], description: string | null = null) => ({ slug, description, steps });
const recursive = (params: Record<string, unknown> = {}) => ({ type: 'chunk', component: 'recursive', ...params });
const token = (params: Record<string, unknown> = {}) => ({ type: 'chunk', component: 'token', ...params });
const tag = (params: Record<string, unknown> = {}) => ({ type: 'refine', component: 'tag', ...params });
const TEXT = 'First sentence here 👋🏽. Second one follows.\r\n\r\n新しい段落が始まる。A new paragraph starts, and it goes on for a while.';

describe('create, get, list, update, run, delete by slug', () => {
  test('create answers 200 with id, slug, description, flat steps with defaults, timestamps', async () => {
    const res = await app.post('/v1/pipeline', pyCreate('rag-docs', [recursive({ chunk_size: 64 }), tag({ label: 'x' })], 'For RAG'));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const p = res.body;
    assert.deepEqual(Object.keys(p), ['id', 'slug', 'description', 'steps', 'created_at', 'updated_at']);
    assert.equal(p.slug, 'rag-docs');
    assert.equal(p.description, 'For RAG');
    assert.deepEqual(p.steps, [
      { type: 'chunk', component: 'recursive', ...defaults('chunker', 'recursive'), chunk_size: 64 },
      { type: 'refine', component: 'tag', label: 'x' },
    ]);
    assert.equal(p.created_at, p.updated_at);
    assert.deepEqual((await app.request('GET', '/v1/pipeline/rag-docs')).body, p);
  });

  test('the TS client body (description null, params beside component) and the alias tokenizer_or_token_counter', async () => {
    const res = await app.post('/v1/pipeline', { slug: 'ts_made', description: null, steps: [token({ chunk_size: 16, tokenizer_or_token_counter: 'word' })] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.steps[0].tokenizer, 'word');
    assert.equal('tokenizer_or_token_counter' in res.body.steps[0], false);
  });

  test('list is {pipelines: [...], next}, newest first, the same objects as get', async () => {
    const a = (await app.post('/v1/pipeline', pyCreate('first', [token()]))).body;
    const b = (await app.post('/v1/pipeline', pyCreate('second', [token()]))).body;
    const res = await app.request('GET', '/v1/pipeline');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { pipelines: [b, a], next: null });
  });

  test('list pages with limit and next; every pipeline once', async () => {
    for (const s of ['p1', 'p2', 'p3']) assert.equal((await app.post('/v1/pipeline', pyCreate(s, [token()]))).status, 200);
    const first = (await app.request('GET', '/v1/pipeline?limit=2')).body;
    assert.deepEqual(
      first.pipelines.map((p: { slug: string }) => p.slug),
      ['p3', 'p2'],
    );
    assert.equal(typeof first.next, 'string');
    const second = (await app.request('GET', `/v1/pipeline?limit=2&cursor=${first.next}`)).body;
    assert.deepEqual(
      second.pipelines.map((p: { slug: string }) => p.slug),
      ['p1'],
    );
    assert.equal(second.next, null);
    const bad = await app.request('GET', '/v1/pipeline?cursor=nope');
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['query', 'cursor']);
  });

  test('update: description only keeps the steps; steps are checked and stored with defaults; updated_at moves', async () => {
    const made = (await app.post('/v1/pipeline', pyCreate('upd', [token({ chunk_size: 8 })]))).body;
    const res = await app.request('PUT', '/v1/pipeline/upd', { description: 'new words' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.description, 'new words');
    assert.deepEqual(res.body.steps, made.steps);
    assert.ok(res.body.updated_at > made.updated_at);
    const steps = await app.request('PUT', '/v1/pipeline/upd', { steps: [token({ chunk_size: 12 }), tag()] });
    assert.equal(steps.status, 200);
    assert.deepEqual(steps.body.steps, [
      { type: 'chunk', component: 'token', ...defaults('chunker', 'token'), chunk_size: 12 },
      { type: 'refine', component: 'tag', ...defaults('refinery', 'tag') },
    ]);
    assert.equal(steps.body.description, 'new words');
    const nothing = await app.request('PUT', '/v1/pipeline/upd', {});
    assert.equal(nothing.status, 422);
    assert.match(nothing.body.detail[0].msg, /Nothing to update/);
  });

  test('update renames by slug; the old slug is then unknown', async () => {
    const made = (await app.post('/v1/pipeline', pyCreate('old-name', [token()]))).body;
    const res = await app.request('PUT', '/v1/pipeline/old-name', { slug: 'new-name' });
    assert.equal(res.status, 200);
    assert.equal(res.body.id, made.id);
    assert.equal((await app.request('GET', '/v1/pipeline/old-name')).status, 404);
    assert.equal((await app.request('GET', '/v1/pipeline/new-name')).body.id, made.id);
  });

  test('run: text → {chunks}, the very chunks of /v1/pipelines/{id}/execute; a list → {chunks: one flat list}, or one list per text with nested', async () => {
    const made = (await app.post('/v1/pipeline', pyCreate('runner', [token({ chunk_size: 10, chunk_overlap: 2 }), tag()]))).body;
    const res = await app.post('/v1/pipeline/runner', { text: TEXT });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(Object.keys(res.body), ['chunks']);
    const direct = await app.post(`/v1/pipelines/${made.id}/execute`, { text: TEXT });
    assert.deepEqual(res.body.chunks, direct.body);
    assert.ok(res.body.chunks.length > 3);
    for (const c of res.body.chunks) {
      assert.equal([...TEXT].slice(c.start_index, c.end_index).join(''), c.text);
      assert.equal(c.metadata.label, 'tagged');
    }
    const batch = await app.post('/v1/pipeline/runner', { text: [TEXT, 'short one', ''], nested: true });
    assert.equal(batch.status, 200);
    assert.equal(batch.body.chunks.length, 3);
    assert.deepEqual(batch.body.chunks[0], res.body.chunks);
    assert.deepEqual(batch.body.chunks[2], []);
    const flat = await app.post('/v1/pipeline/runner', { text: [TEXT, 'short one', ''] });
    const marked = batch.body.chunks.flatMap((list: { metadata: object }[], i: number) =>
      list.map((c) => ({ ...c, metadata: { ...c.metadata, document: i } })),
    );
    assert.deepEqual(flat.body, { chunks: marked });
    assert.deepEqual((await app.post('/v1/pipeline/runner', { text: 'abc def', return_type: 'texts' })).body, { chunks: ['abc def'] });
  });

  test('run by file: an upload chunked through the slug run, as the clients send it, offsets into the extracted text', async () => {
    await app.post('/v1/pipeline', pyCreate('by-file', [token({ chunk_size: 10 })]));
    const form = new FormData();
    form.append('file', new Blob([TEXT], { type: 'text/plain' }), 'notes.txt');
    const up = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form });
    assert.equal(up.status, 201);
    const { name } = (await up.json()) as { name: string };
    const res = await app.post('/v1/pipeline/by-file', { file: { type: 'document', content: name } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body, (await app.post('/v1/pipeline/by-file', { text: TEXT })).body);
    const missing = await app.post('/v1/pipeline/by-file', { file: { type: 'document', content: 'file_00000000000000000000000000000000' } });
    assert.equal(missing.status, 404);
  });

  test('run, get, update, delete of an unknown slug: 404 "not found"', async () => {
    for (const [method, body] of [
      ['POST', { text: 'x' }],
      ['GET', undefined],
      ['PUT', { description: 'd' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await app.request(method, '/v1/pipeline/nobody', body);
      assert.equal(res.status, 404, method);
      assert.match(res.body.detail, /Pipeline 'nobody' not found/);
    }
  });

  test('delete answers 200 with a message (Py accepts only 200; TS parses a JSON body); the pipeline is gone from both APIs', async () => {
    const made = (await app.post('/v1/pipeline', pyCreate('gone', [token()]))).body;
    const res = await app.request('DELETE', '/v1/pipeline/gone');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { message: "Pipeline 'gone' deleted.", id: made.id, slug: 'gone' });
    assert.equal((await app.request('GET', '/v1/pipeline/gone')).status, 404);
    assert.equal((await app.request('GET', `/v1/pipelines/${made.id}`)).status, 404);
  });
});

describe('one store: each API sees, runs and deletes what the other made', () => {
  test('made by slug → seen, executed, updated and deleted through /v1/pipelines, stored with config', async () => {
    const made = (await app.post('/v1/pipeline', pyCreate('by-slug', [token({ chunk_size: 8 }), tag({ label: 'L' })], 'd'))).body;
    const stored = (await app.request('GET', `/v1/pipelines/${made.id}`)).body;
    assert.equal(stored.name, 'by-slug');
    assert.deepEqual(stored.steps, [
      { type: 'chunk', chunker: 'token', config: { ...defaults('chunker', 'token'), chunk_size: 8 } },
      { type: 'refine', refinery: 'tag', config: { label: 'L' } },
    ]);
    assert.deepEqual((await app.request('GET', '/v1/pipelines')).body, [stored]);
    const run = await app.post(`/v1/pipelines/${made.id}/execute`, { text: TEXT });
    assert.deepEqual(run.body, (await app.post('/v1/pipeline/by-slug', { text: TEXT })).body.chunks);
    const renamed = await app.request('PUT', `/v1/pipelines/${made.id}`, { description: 'via id' });
    assert.equal((await app.request('GET', '/v1/pipeline/by-slug')).body.description, renamed.body.description);
    assert.equal((await app.request('DELETE', `/v1/pipelines/${made.id}`)).status, 204);
    assert.equal((await app.request('GET', '/v1/pipeline/by-slug')).status, 404);
  });

  test('made by id → seen with flat steps, run, updated and deleted through /v1/pipeline', async () => {
    const made = (await app.post('/v1/pipelines', { name: 'by-id', steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 9 } }] })).body;
    const got = (await app.request('GET', '/v1/pipeline/by-id')).body;
    assert.deepEqual(got, {
      id: made.id,
      slug: 'by-id',
      description: null,
      steps: [{ type: 'chunk', component: 'token', ...made.steps[0].config }],
      created_at: made.created_at,
      updated_at: made.updated_at,
    });
    assert.deepEqual((await app.request('GET', '/v1/pipeline')).body.pipelines, [got]);
    assert.deepEqual(
      (await app.post('/v1/pipeline/by-id', { text: TEXT })).body.chunks,
      (await app.post(`/v1/pipelines/${made.id}/execute`, { text: TEXT })).body,
    );
    await app.request('PUT', '/v1/pipeline/by-id', { steps: [token({ chunk_size: 5 })] });
    assert.equal((await app.request('GET', `/v1/pipelines/${made.id}`)).body.steps[0].config.chunk_size, 5);
    assert.equal((await app.request('DELETE', '/v1/pipeline/by-id')).status, 200);
    assert.equal((await app.request('GET', `/v1/pipelines/${made.id}`)).status, 404);
  });

  test('a name is unique across both: 409 whichever API holds it', async () => {
    assert.equal((await app.post('/v1/pipeline', pyCreate('taken', [token()]))).status, 200);
    const again = await app.post('/v1/pipeline', pyCreate('taken', [token()]));
    assert.equal(again.status, 409);
    assert.match(again.body.detail, /slug 'taken' already exists.*PUT \/v1\/pipeline\/taken/);
    assert.equal((await app.post('/v1/pipelines', { name: 'taken', steps: [{ type: 'chunk', chunker: 'token' }] })).status, 409);
    assert.equal((await app.post('/v1/pipelines', { name: 'other', steps: [{ type: 'chunk', chunker: 'token' }] })).status, 201);
    assert.equal((await app.post('/v1/pipeline', pyCreate('other', [token()]))).status, 409);
    assert.equal((await app.request('PUT', '/v1/pipeline/other', { slug: 'taken' })).status, 409);
  });

  test('concurrent creates of one slug: exactly one 200, the others 409 (the database decides)', async () => {
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => app.post('/v1/pipeline', pyCreate('race', [token({ chunk_size: 10 + i })]))));
    assert.deepEqual(answers.map((r) => r.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409]);
    const winner = answers.find((r) => r.status === 200)!.body;
    assert.deepEqual((await app.request('GET', '/v1/pipeline/race')).body, winner);
  });

  test('names that are not slugs: left out of the slug list (counted in a header), a 404 in a path that says why and gives the id', async () => {
    const made = (await app.post('/v1/pipelines', { name: 'Docs_512', steps: [{ type: 'chunk', chunker: 'token' }] })).body;
    await app.post('/v1/pipeline', pyCreate('docs-512', [token()]));
    const list = await app.request('GET', '/v1/pipeline');
    assert.deepEqual(
      list.body.pipelines.map((p: { slug: string }) => p.slug),
      ['docs-512'],
    );
    assert.equal(list.headers.get('x-chunkd-omitted'), '1');
    const res = await app.request('GET', '/v1/pipeline/Docs_512');
    assert.equal(res.status, 404);
    assert.match(res.body.detail, new RegExp(`'Docs_512' is not a slug: a slug holds only lowercase letters.*/v1/pipelines/${made.id}`));
  });
});

describe('slugs and reserved words', () => {
  test('a slug outside [a-z0-9_-] is a 422 at body.slug saying which characters a slug holds', async () => {
    for (const slug of ['My-Docs', 'a/b', 'a%2Fb', 'with space', 'é', '']) {
      const res = await app.post('/v1/pipeline', pyCreate(slug, [token()]));
      assert.equal(res.status, 422, slug);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'slug'], slug);
      if (slug) assert.match(res.body.detail[0].msg, /slug may hold only lowercase letters a-z, digits, '-' and '_'/);
    }
    assert.equal((await app.request('PUT', '/v1/pipeline/x', { slug: 'Bad' })).status, 422);
  });

  test('a slug in a path is spelled as is: percent-encoding and other characters are a 404 that says so; a real slash is another route', async () => {
    await app.post('/v1/pipeline', pyCreate('abc', [token()]));
    for (const [path, why] of [
      ['/v1/pipeline/a%2Fb', /'a%2Fb' is percent-encoded, and a slug is spelled as is/],
      ['/v1/pipeline/%61bc', /'%61bc' is percent-encoded/],
      ['/v1/pipeline/UPPER', /'UPPER' is not a slug/],
    ] as const) {
      const res = await app.request('GET', path);
      assert.equal(res.status, 404, path);
      assert.match(res.body.detail, why);
    }
    assert.equal((await app.request('GET', '/v1/pipeline/a/b')).status, 404);
    assert.equal((await app.request('GET', '/v1/pipeline/abc')).status, 200);
  });

  test("'validate' can name no pipeline, through either API; POST /v1/pipeline/validate always validates", async () => {
    const slug = await app.post('/v1/pipeline', pyCreate('validate', [token()]));
    assert.equal(slug.status, 422);
    assert.deepEqual(slug.body.detail[0].loc, ['body', 'slug']);
    assert.match(slug.body.detail[0].msg, /'validate' is reserved/);
    const named = await app.post('/v1/pipelines', { name: 'validate', steps: [{ type: 'chunk', chunker: 'token' }] });
    assert.equal(named.status, 422);
    assert.deepEqual(named.body.detail[0].loc, ['body', 'name']);
    const { id } = (await app.post('/v1/pipelines', { name: 'v', steps: [{ type: 'chunk', chunker: 'token' }] })).body;
    assert.equal((await app.request('PUT', `/v1/pipelines/${id}`, { name: 'validate' })).status, 422);
    assert.equal((await app.request('PUT', '/v1/pipeline/v', { slug: 'validate' })).status, 422);
    const get = await app.request('GET', '/v1/pipeline/validate');
    assert.equal(get.status, 404);
    assert.match(get.body.detail, /'validate' is a reserved word/);
    const encoded = await app.post('/v1/pipeline/%76alidate', { steps: [token()] });
    assert.equal(encoded.status, 404, 'neither the validate route nor a run');
  });

  test('every fixed word under /v1/pipeline/ is a reserved name (derived from the routes)', () => {
    const fixed = app.booted.app.routes.map((r) => /^\/v1\/pipeline\/([^/:]+)$/.exec(r.path)?.[1]).filter((w): w is string => w !== undefined);
    assert.deepEqual(fixed, ['validate']);
    for (const word of fixed) assert.ok(RESERVED_NAMES.has(word), word);
  });
});

describe("process steps (Chonkie's chefs), with the Python client's exact bodies", () => {
  // Pipeline(slug).process_with("markdown").chunk_with("recursive") sends, on its first run(text=…):
  // POST /v1/pipeline {slug, description: None, steps: [{type, component, **kwargs}, …]}, then POST /v1/pipeline/{slug} {text}.
  const MD = '# Install\r\n\r\nIntro text.\r\n\r\n## From source\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n\r\nClone 🦛 and build.\r\n';

  test('process_with("markdown").chunk_with("recursive"): chunks carry their heading path; offsets are on the text', async () => {
    const created = await app.post(
      '/v1/pipeline',
      pyCreate('md-docs', [
        { type: 'process', component: 'markdown' },
        { type: 'chunk', component: 'recursive', chunk_size: 24 },
      ]),
    );
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.steps[0], { type: 'process', component: 'markdown' });
    const run = await app.post('/v1/pipeline/md-docs', { text: MD });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const chunks = run.body.chunks as { text: string; start_index: number; end_index: number; metadata: { headings: string[]; blocks: string[] } }[];
    assert.ok(chunks.length > 2);
    for (const c of chunks) assert.equal(Array.from(MD).slice(c.start_index, c.end_index).join(''), c.text);
    const clone = chunks.find((c) => c.text.includes('Clone'))!;
    assert.deepEqual(clone.metadata.headings, ['Install', 'From source']);
    assert.deepEqual(chunks[0]!.metadata.headings, ['Install']);
    assert.ok(
      chunks.some((c) => c.metadata.blocks.includes('table')),
      JSON.stringify(chunks.map((c) => c.metadata)),
    );
  });

  test('process_with("text") and process_with("table") run; a text without structure gives plain chunks', async () => {
    await app.post(
      '/v1/pipeline',
      pyCreate('plain', [
        { type: 'process', component: 'text' },
        { type: 'chunk', component: 'recursive' },
      ]),
    );
    const plain = await app.post('/v1/pipeline/plain', { text: TEXT });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    const direct = await app.post('/v1/chunk/recursive', { text: TEXT });
    assert.deepEqual(plain.body.chunks, direct.body, 'the text chef changes nothing');
    const made = await app.post(
      '/v1/pipeline',
      pyCreate('tables', [
        { type: 'process', component: 'table' },
        { type: 'chunk', component: 'recursive', chunk_size: 32 },
      ]),
    );
    assert.equal(made.status, 200, JSON.stringify(made.body));
    const run = await app.post('/v1/pipeline/tables', { text: MD });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.chunks.every((c: { metadata: { blocks: string[] } }) => Array.isArray(c.metadata.blocks)));
  });

  test('/v1/pipelines takes the stored form {type: "process", chef, config}', async () => {
    const res = await app.post('/v1/pipelines', {
      name: 'stored-md',
      steps: [
        { type: 'process', chef: 'markdown', config: {} },
        { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
      ],
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(res.body.steps[0], { type: 'process', chef: 'markdown', config: {} });
    const bad = await app.post('/v1/pipelines', {
      name: 'bad',
      steps: [
        { type: 'chunk', chunker: 'token' },
        { type: 'process', chef: 'markdown' },
      ],
    });
    assert.equal(bad.status, 422);
    assert.deepEqual(bad.body.detail[0].loc, ['body', 'steps', 1, 'type']);
  });
});

describe('validate', () => {
  test('valid steps: 200 {valid: true, errors: null} and the steps as stored', async () => {
    const res = await app.post('/v1/pipeline/validate', { steps: [recursive({ chunk_size: 128 }), tag()] });
    assert.equal(res.status, 200);
    assert.equal(res.body.valid, true);
    assert.equal(res.body.errors, null);
    assert.deepEqual(res.body.steps[0], { type: 'chunk', component: 'recursive', ...defaults('chunker', 'recursive'), chunk_size: 128 });
    assert.equal((await app.request('GET', '/v1/pipeline')).body.pipelines.length, 0, 'nothing stored');
  });

  type Case = [what: string, steps: unknown, error: RegExp];
  const cases: Case[] = [
    ['a misspelt chunker', [{ type: 'chunk', component: 'tokn' }], /^Step 0 \(chunk 'tokn'\): Unknown chunker 'tokn'\. Did you mean 'token'\?/],
    ['a param out of range', [token({ chunk_size: 0 })], /^Step 0 \(chunk 'token'\): chunk_size must be >= 1/],
    ['an unknown param', [token({ chunk_sise: 5 })], /^Step 0 \(chunk 'token'\): .*Did you mean 'chunk_size'\?/],
    ['a config the plugin refuses', [token({ chunk_size: 4, chunk_overlap: 4 })], /^Step 0 \(chunk 'token'\): .*must be smaller than chunk_size/],
    ['a refine step first', [tag(), token()], /^Step 0 \(refine 'tag'\): A refine step needs a chunk step before it/],
    ['two chunk steps', [token(), token()], /^Step 1 \(chunk 'token'\): A pipeline has one chunk step/],
    [
      'two process steps',
      [{ type: 'process', component: 'markdown' }, { type: 'process', component: 'text' }, token()],
      /^Step 1 \(process 'text'\): A pipeline has at most one process step, and step 0 is one/,
    ],
    [
      'a process step after the chunk step',
      [token(), { type: 'process', component: 'markdown' }],
      /^Step 1 \(process 'markdown'\): A process step comes before the chunk step \(step 0\)/,
    ],
    [
      'a process step without a chunk step',
      [{ type: 'process', component: 'markdown' }],
      /^Step 0 \(process 'markdown'\): A process step needs a chunk step after it/,
    ],
    [
      'a misspelt chef',
      [{ type: 'process', component: 'markdwn' }, token()],
      /^Step 0 \(process 'markdwn'\): Unknown chef 'markdwn'\. Did you mean 'markdown'\?/,
    ],
    ['params under config', [{ ...token(), config: { chunk_size: 5 } }], /^Step 0 \(chunk 'token'\): Parameters sit beside type and component/],
    ['the stored shape', [{ type: 'chunk', chunker: 'token' }], /^Step 0: Field required: add 'component'/],
    ['no steps', [], /^steps: .*fewer than 1 items/],
    ['steps not a list', 'token', /^steps: steps must be array/],
    ['no steps field', undefined, /^steps: Field required: add 'steps'/],
  ];
  for (const [what, steps, error] of cases) {
    test(`${what}: 200 {valid: false} with a readable error naming the step`, async () => {
      const res = await app.post('/v1/pipeline/validate', steps === undefined ? {} : { steps });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.valid, false);
      assert.ok(
        res.body.errors.some((e: string) => error.test(e)),
        JSON.stringify(res.body.errors),
      );
      assert.match(res.body.message, /not valid/);
    });
  }

  test('a body that is not a JSON object is a 422 (it holds no steps to judge)', async () => {
    assert.equal((await app.post('/v1/pipeline/validate', [])).status, 422);
    assert.equal((await app.post('/v1/pipeline/validate', '{')).status, 422);
  });
});

describe('create refuses invalid steps as validate judges them: 422, each problem at its flat loc, naming the step', () => {
  test('every problem at once', async () => {
    const res = await app.post('/v1/pipeline', pyCreate('bad', [{ type: 'chunk', component: 'tokn' }, tag({ label: '' }), token({ chunk_size: 0 })]));
    assert.equal(res.status, 422);
    const byLoc = new Map(res.body.detail.map((i: { loc: unknown[]; msg: string }) => [JSON.stringify(i.loc), i.msg]));
    assert.match(byLoc.get('["body","steps",0,"component"]') as string, /^Step 0 \(chunk 'tokn'\): Unknown chunker 'tokn'/);
    assert.match(byLoc.get('["body","steps",1,"label"]') as string, /^Step 1 \(refine 'tag'\): label/);
    assert.match(byLoc.get('["body","steps",2,"chunk_size"]') as string, /^Step 2 \(chunk 'token'\): chunk_size must be >= 1/);
    assert.equal((await app.request('GET', '/v1/pipeline/bad')).status, 404, 'nothing stored');
  });
});

describe("Chonkie's Python client flow: create, and on any status but 200, update", () => {
  /** What `Pipeline._save()` then `update()` do, status for status. */
  async function pySave(body: ReturnType<typeof pyCreate>) {
    const created = await app.post('/v1/pipeline', body);
    if (created.status === 200) return { via: 'create', res: created };
    const payload: Record<string, unknown> = { steps: body.steps };
    if (body.description !== null) payload.description = body.description;
    return { via: 'update', res: await app.request('PUT', `/v1/pipeline/${body.slug}`, payload) };
  }

  test('a second client with the same slug updates the pipeline, and its run uses the new steps', async () => {
    const first = await pySave(pyCreate('shared', [token({ chunk_size: 50 })]));
    assert.equal(first.via, 'create');
    const second = await pySave(pyCreate('shared', [token({ chunk_size: 5 })], 'second'));
    assert.equal(second.via, 'update');
    assert.equal(second.res.status, 200);
    assert.equal(second.res.body.id, first.res.body.id);
    assert.ok(second.res.body.updated_at > first.res.body.updated_at);
    const run = await app.post('/v1/pipeline/shared', { text: 'abcdefghij' });
    assert.deepEqual(
      run.body.chunks.map((c: { text: string }) => c.text),
      ['abcde', 'fghij'],
    );
  });

  test('invalid steps: the fallback update answers the same 422 naming the step, not a 404', async () => {
    const { via, res } = await pySave(pyCreate('never', [token({ chunk_size: -1 })]));
    assert.equal(via, 'update');
    assert.equal(res.status, 422);
    assert.deepEqual(res.body.detail[0].loc, ['body', 'steps', 0, 'chunk_size']);
    assert.match(res.body.detail[0].msg, /^Step 0 \(chunk 'token'\)/);
  });
});

describe('API keys', () => {
  let keyed: TestApp;
  before(async () => (keyed = await startApp({ 'api-keys': 'k1' })));
  after(async () => keyed.close());

  test('every slug route needs the key; with it, the client flow works', async () => {
    const calls = [
      ['POST', '/v1/pipeline', pyCreate('k', [token()])],
      ['GET', '/v1/pipeline'],
      ['POST', '/v1/pipeline/validate', { steps: [token()] }],
      ['GET', '/v1/pipeline/k'],
      ['PUT', '/v1/pipeline/k', { description: 'd' }],
      ['POST', '/v1/pipeline/k', { text: 'hello' }],
      ['DELETE', '/v1/pipeline/k'],
    ] as const;
    for (const [method, path, body] of calls) assert.equal((await keyed.request(method, path, body)).status, 401, `${method} ${path}`);
    const auth = { Authorization: 'Bearer k1' };
    const expected = [200, 200, 200, 200, 200, 200, 200];
    const got = [];
    for (const [method, path, body] of calls) got.push((await keyed.request(method, path, body, auth)).status);
    assert.deepEqual(got, expected);
  });
});

describe('pooled', () => {
  let pooled: TestApp;
  before(async () => {
    pooled = await startApp({ workers: '1' });
    await (pooled.booted.deps.executor as WorkerPool).ready;
  });
  after(async () => pooled.close());

  test('a large body runs in a worker and answers {chunks}, as the inline run and /execute do', async () => {
    const { id } = (await pooled.post('/v1/pipeline', pyCreate('big', [token({ chunk_size: 4096 })]))).body;
    const text = 'lorem ipsum dolor sit amet '.repeat(4000); // past the size a worker takes (kernel/engine/placement/pool.ts)
    const res = await pooled.request('POST', '/v1/pipeline/big', { text });
    assert.equal(res.status, 200);
    const direct = await pooled.post(`/v1/pipelines/${id}/execute`, { text });
    assert.deepEqual(res.body, { chunks: direct.body });
    assert.equal(res.body.chunks.length, Math.ceil(text.length / 4096));
    const batch = await pooled.post('/v1/pipeline/big', { text: [text, text.slice(0, 10)], nested: true });
    assert.deepEqual(batch.body, { chunks: (await pooled.post(`/v1/pipelines/${id}/execute`, { text: [text, text.slice(0, 10)] })).body });
    assert.equal(batch.body.chunks.length, 2);
    const flat = await pooled.post('/v1/pipeline/big', { text: [text, text.slice(0, 10)] });
    assert.deepEqual(
      flat.body.chunks.map((c: { metadata: { document: number } }) => c.metadata.document),
      [...batch.body.chunks[0].map(() => 0), 1],
    );
    assert.equal((await pooled.post('/v1/pipeline/absent', { text })).status, 404);
  });
});
