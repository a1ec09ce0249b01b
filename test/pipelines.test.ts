/** Pipelines over HTTP: CRUD, validation on write, execute through the endpoints' path, concurrency. */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { ROOT } from '../kernel/paths.js';
import type { WorkerPool } from '../kernel/engine/index.js';
import { PAGE_MAX } from '../wire/pipelines.js';
import { startApp, type Reply, type TestApp } from './helpers/app.js';
import { BIG_TEXT, busyPluginDir, markerDir } from './helpers/busy-plugin.js';
import { slowBuildPluginDir } from './helpers/slow-build-plugin.js';
import { tagPluginDir, withTagPluginApp } from './helpers/tag-plugin.js';

let app: TestApp;
withTagPluginApp((a) => (app = a));

/** Every test starts from an empty store. */
beforeEach(async () => {
  for (let page; (page = (await app.request('GET', '/v1/pipelines')).body).length;) for (const p of page) await app.request('DELETE', `/v1/pipelines/${p.id}`);
});

const chunk = (config: Record<string, unknown> = {}) => ({ type: 'chunk', chunker: 'token', config });
const refine = (config: Record<string, unknown> = {}) => ({ type: 'refine', refinery: 'tag', config });
const create = (body: Record<string, unknown>) => app.post('/v1/pipelines', { steps: [chunk()], ...body });
const defaults = (kind: 'chunker' | 'refinery', name: string) =>
  Object.fromEntries(
    Object.entries(app.booted.deps.registry.get(kind, name).manifest.config.properties).map(([k, f]) => [k, (f as { default: unknown }).default]),
  );
const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('create', () => {
  test('201 with id, name, description, steps with defaults filled in, timestamps', async () => {
    const res = await create({ name: 'docs', steps: [chunk({ chunk_size: 64 }), refine()] });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const p = res.body;
    assert.deepEqual(Object.keys(p), ['id', 'name', 'description', 'steps', 'created_at', 'updated_at']);
    assert.match(p.id, UUID);
    assert.equal(p.name, 'docs');
    assert.equal(p.description, null);
    assert.deepEqual(p.steps, [
      { type: 'chunk', chunker: 'token', config: { ...defaults('chunker', 'token'), chunk_size: 64 } },
      { type: 'refine', refinery: 'tag', config: defaults('refinery', 'tag') },
    ]);
    assert.match(p.created_at, ISO_UTC);
    assert.equal(p.updated_at, p.created_at);
    assert.deepEqual((await app.request('GET', `/v1/pipelines/${p.id}`)).body, p);
  });

  test('a step config given under an alias is stored under the canonical name', async () => {
    const res = await create({ name: 'alias', steps: [chunk({ tokenizer_or_token_counter: 'word' })] });
    assert.equal(res.body.steps[0].config.tokenizer, 'word');
    assert.equal('tokenizer_or_token_counter' in res.body.steps[0].config, false);
  });

  test('unknown top-level keys are ignored and named in a header, as on the plugin routes', async () => {
    const res = await create({ name: 'extra', colour: 'blue' });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('x-chunkd-ignored-keys'), 'colour');
  });

  test('a duplicate name is a 409', async () => {
    assert.equal((await create({ name: 'twice' })).status, 201);
    const res = await create({ name: 'twice' });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'CONFLICT');
    assert.match(res.body.detail, /named 'twice' already exists/);
  });
});

describe('validation on write: 422 whose loc names the step and the field', () => {
  type Case = [name: string, body: Record<string, unknown>, loc: (string | number)[], msg: RegExp];
  const cases: Case[] = [
    ['an empty name', { name: '' }, ['body', 'name'], /fewer than 1 characters/],
    ['a blank name', { name: '  ' }, ['body', 'name'], /must match pattern/],
    ['a name with a lone surrogate', { name: 'a\ud800' }, ['body', 'name'], /lone UTF-16 surrogate/],
    ['no name', { name: undefined }, ['body', 'name'], /Field required: add 'name'/],
    ['no steps', { name: 'x', steps: undefined }, ['body', 'steps'], /Field required/],
    ['an empty step list', { name: 'x', steps: [] }, ['body', 'steps'], /fewer than 1 items/],
    [
      'an unknown step type',
      { name: 'x', steps: [{ type: 'split', chunker: 'token' }] },
      ['body', 'steps', 0, 'type'],
      /must be "process" or "chunk" or "refine"/,
    ],
    ['an unknown step key', { name: 'x', steps: [{ ...chunk(), options: {} }] }, ['body', 'steps', 0, 'options'], /Unknown field 'options'/],
    [
      'a misspelt chunker',
      { name: 'x', steps: [{ type: 'chunk', chunker: 'tokn' }] },
      ['body', 'steps', 0, 'chunker'],
      /Unknown chunker 'tokn'\. Did you mean 'token'\?/,
    ],
    ['a chunk step without a chunker', { name: 'x', steps: [{ type: 'chunk' }] }, ['body', 'steps', 0, 'chunker'], /Field required: add 'chunker'/],
    [
      'a chunk step naming a refinery',
      { name: 'x', steps: [{ ...chunk(), refinery: 'tag' }] },
      ['body', 'steps', 0, 'refinery'],
      /names a chunker, not a refinery/,
    ],
    [
      'a misspelt refinery',
      { name: 'x', steps: [chunk(), { type: 'refine', refinery: 'tga' }] },
      ['body', 'steps', 1, 'refinery'],
      /Unknown refinery 'tga'\. Did you mean 'tag'\?/,
    ],
    ['a refine step first', { name: 'x', steps: [refine(), chunk()] }, ['body', 'steps', 0, 'type'], /needs a chunk step before it/],
    [
      'two process steps',
      { name: 'x', steps: [{ type: 'process', chef: 'markdown' }, { type: 'process', chef: 'text' }, chunk()] },
      ['body', 'steps', 1, 'type'],
      /at most one process step, and step 0 is one/,
    ],
    [
      'a process step after the chunk step',
      { name: 'x', steps: [chunk(), { type: 'process', chef: 'markdown' }] },
      ['body', 'steps', 1, 'type'],
      /comes before the chunk step/,
    ],
    [
      'a misspelt chef',
      { name: 'x', steps: [{ type: 'process', chef: 'markdwon' }, chunk()] },
      ['body', 'steps', 0, 'chef'],
      /Unknown chef 'markdwon'\. Did you mean 'markdown'\?/,
    ],
    ['two chunk steps', { name: 'x', steps: [chunk(), chunk()] }, ['body', 'steps', 1, 'type'], /one chunk step, and step 0 is one/],
    [
      'a config field below its minimum',
      { name: 'x', steps: [refine(), chunk({ chunk_size: 0 })] },
      ['body', 'steps', 1, 'config', 'chunk_size'],
      /chunk_size must be >= 1/,
    ],
    ['a config field of the wrong type', { name: 'x', steps: [chunk({ chunk_size: '64' })] }, ['body', 'steps', 0, 'config', 'chunk_size'], /must be integer/],
    ['an unknown config field', { name: 'x', steps: [chunk({ chunk_sise: 64 })] }, ['body', 'steps', 0, 'config', 'chunk_sise'], /Did you mean 'chunk_size'\?/],
    ['a refinery config error', { name: 'x', steps: [chunk(), refine({ label: '' })] }, ['body', 'steps', 1, 'config', 'label'], /fewer than 1 characters/],
    [
      'a config the plugin refuses',
      { name: 'x', steps: [chunk({ chunk_size: 4, chunk_overlap: 4 })] },
      ['body', 'steps', 0, 'config'],
      /must be smaller than chunk_size/,
    ],
    ['an unknown tokenizer', { name: 'x', steps: [chunk({ tokenizer: 'cl100k' })] }, ['body', 'steps', 0, 'config'], /Did you mean 'cl100k_base'\?/],
    ['config not an object', { name: 'x', steps: [{ ...chunk(), config: [] }] }, ['body', 'steps', 0, 'config'], /must be object/],
  ];
  for (const [name, body, loc, msg] of cases) {
    test(name, async () => {
      const res = await app.post('/v1/pipelines', { steps: [chunk()], ...body });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION');
      const issue = res.body.detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc));
      assert.ok(issue, `no issue at ${JSON.stringify(loc)}: ${JSON.stringify(res.body.detail)}`);
      assert.match(issue.msg, msg);
      assert.deepEqual((await app.request('GET', '/v1/pipelines')).body, [], 'nothing was stored');
    });
  }

  test('every problem of every step is reported at once, with the name’s', async () => {
    const res = await app.post('/v1/pipelines', { name: '', steps: [{ type: 'chunk', chunker: 'tokn' }, refine({ label: 7 })] });
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    assert.deepEqual(locs, ['body.name', 'body.steps.0.chunker', 'body.steps.1.config.label']);
  });

  test('a body that is not a JSON object', async () => {
    for (const body of [[1], '"text"', 'null']) {
      const res = await app.post('/v1/pipelines', body);
      assert.equal(res.status, 422, String(body));
      assert.deepEqual(res.body.detail[0].loc, ['body']);
    }
  });
});

describe('list, get, update, delete', () => {
  test('the list is newest first', async () => {
    const names = ['one', 'two', 'three', 'four'];
    for (const name of names) assert.equal((await create({ name })).status, 201);
    const list = (await app.request('GET', '/v1/pipelines')).body as { name: string }[];
    assert.deepEqual(
      list.map((p) => p.name),
      names.reverse(),
    );
  });

  type Patch = [what: string, patch: Record<string, unknown>, changed: (p: Record<string, unknown>) => Record<string, unknown>];
  const patches: Patch[] = [
    ['the name only', { name: 'renamed' }, () => ({ name: 'renamed' })],
    ['the description only', { description: 'About it.' }, () => ({ description: 'About it.' })],
    ['the description back to null', { description: null }, () => ({ description: null })],
    [
      'the steps only',
      { steps: [chunk({ chunk_size: 8 }), refine({ label: 'x' })] },
      () => ({
        steps: [
          { type: 'chunk', chunker: 'token', config: { ...defaults('chunker', 'token'), chunk_size: 8 } },
          { type: 'refine', refinery: 'tag', config: { label: 'x' } },
        ],
      }),
    ],
    [
      'all three',
      { name: 'all', description: 'd', steps: [chunk()] },
      () => ({ name: 'all', description: 'd', steps: [{ type: 'chunk', chunker: 'token', config: defaults('chunker', 'token') }] }),
    ],
    ['the name to its own name', { name: 'orig' }, () => ({})],
  ];
  for (const [what, patch, changed] of patches) {
    test(`PUT changes ${what}; the rest stays; updated_at changes`, async () => {
      const before = (await create({ name: 'orig', description: 'first', steps: [chunk({ chunk_size: 3 })] })).body;
      const res = await app.request('PUT', `/v1/pipelines/${before.id}`, patch);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const { updated_at, ...rest } = res.body;
      const { updated_at: was, ...expected } = { ...before, ...changed(before) };
      assert.deepEqual(rest, expected);
      assert.ok(updated_at > was, `updated_at ${updated_at} after ${was}`);
      assert.deepEqual((await app.request('GET', `/v1/pipelines/${before.id}`)).body, res.body);
    });
  }

  test('PUT is validated like a create: 409 on a taken name, 422 with the step loc, 422 when empty', async () => {
    await create({ name: 'taken' });
    const { id } = (await create({ name: 'mine' })).body;
    const conflict = await app.request('PUT', `/v1/pipelines/${id}`, { name: 'taken' });
    assert.equal(conflict.status, 409);
    const invalid = await app.request('PUT', `/v1/pipelines/${id}`, { steps: [chunk(), refine({ label: '' })] });
    assert.equal(invalid.status, 422);
    assert.deepEqual(invalid.body.detail[0].loc, ['body', 'steps', 1, 'config', 'label']);
    const empty = await app.request('PUT', `/v1/pipelines/${id}`, { nmae: 'typo' });
    assert.equal(empty.status, 422);
    assert.match(empty.body.detail[0].msg, /Nothing to update/);
    assert.equal((await app.request('GET', `/v1/pipelines/${id}`)).body.name, 'mine', 'unchanged');
  });

  test('DELETE answers 204 with no body, and the pipeline is gone', async () => {
    const { id } = (await create({ name: 'gone' })).body;
    const res = await app.request('DELETE', `/v1/pipelines/${id}`);
    assert.equal(res.status, 204);
    assert.equal(res.body, '');
    assert.equal(res.headers.get('content-type'), null);
    assert.equal((await app.request('GET', `/v1/pipelines/${id}`)).status, 404);
    assert.equal((await create({ name: 'gone' })).status, 201, 'the name is free again');
  });
});

describe('stored size: 413 naming the limit and the setting', () => {
  test('on create and on update, measured on the steps as stored (defaults filled in)', async () => {
    const plugins = tagPluginDir();
    const small = await startApp({ 'max-pipeline-bytes': '1000', 'plugins-dir': plugins });
    try {
      const post = (body: Record<string, unknown>) => small.post('/v1/pipelines', { steps: [chunk()], ...body });
      const ok = await post({ name: 'fits', description: 'x'.repeat(500) });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const size = Buffer.byteLength(JSON.stringify(ok.body.steps)) + Buffer.byteLength(ok.body.name) + Buffer.byteLength(ok.body.description);
      // Same name length: the description alone sets the size. Exactly 1000 bytes fits; 1001 does
      // not, though it is 1000 characters (é is 2 bytes in UTF-8).
      const room = 1000 - size + 500;
      const full = await post({ name: 'full', description: 'x'.repeat(room) });
      assert.equal(full.status, 201, JSON.stringify(full.body));
      assert.equal((await small.request('DELETE', `/v1/pipelines/${full.body.id}`)).status, 204);
      const over = await post({ name: 'over', description: `${'x'.repeat(room - 1)}é` });
      assert.equal(over.status, 413, JSON.stringify(over.body));
      assert.equal(over.body.code, 'TOO_LARGE');
      assert.match(over.body.detail, /takes \d+ bytes as stored .*the limit is 1000\. .*--max-pipeline-bytes \(CHUNKD_MAX_PIPELINE_BYTES\)/);
      // The defaults count: many steps whose body is small but whose stored form is not.
      const many = await post({ name: 'many', steps: [chunk(), ...Array.from({ length: 40 }, () => refine())] });
      assert.equal(many.status, 413, JSON.stringify(many.body));
      // Update: the stored pipeline with the change, whichever field grows it.
      for (const patch of [{ description: 'y'.repeat(990) }, { steps: [chunk(), ...Array.from({ length: 40 }, () => refine())] }]) {
        const res = await small.request('PUT', `/v1/pipelines/${ok.body.id}`, patch);
        assert.equal(res.status, 413, JSON.stringify(res.body));
        assert.match(res.body.detail, /--max-pipeline-bytes/);
      }
      assert.deepEqual((await small.request('GET', `/v1/pipelines/${ok.body.id}`)).body, ok.body, 'a refused update changes nothing');
      assert.equal((await small.request('PUT', `/v1/pipelines/${ok.body.id}`, { description: 'shorter' })).status, 200);
      assert.deepEqual(
        (await small.request('GET', '/v1/pipelines')).body.map((p: { name: string }) => p.name),
        ['fits'],
      );
    } finally {
      await small.close();
      rmSync(plugins, { recursive: true, force: true });
    }
  });

  test('the default limit is 256 KiB: with a page of at most 100, a list answer stays near 25 MiB', () => {
    assert.equal(app.settings.maxPipelineBytes, 256 * 1024);
  });
});

describe('the list, a page at a time', () => {
  const names = (res: { body: { name: string }[] }) => res.body.map((p) => p.name);
  const nextOf = (res: { headers: Headers }) => /^<([^>]+)>; rel="next"$/.exec(res.headers.get('link') ?? '')?.[1];

  test('a bare list; X-Total-Count; Link rel="next" until the last page', async () => {
    for (let i = 0; i < 5; i++) assert.equal((await create({ name: `p${i}` })).status, 201);
    const all = await app.request('GET', '/v1/pipelines');
    assert.deepEqual(names(all), ['p4', 'p3', 'p2', 'p1', 'p0'], 'without a query: every pipeline while they fit a page');
    assert.equal(all.headers.get('x-total-count'), '5');
    assert.equal(all.headers.get('link'), null, 'one page: no next');

    const seen: string[][] = [];
    let path: string | undefined = '/v1/pipelines?limit=2';
    while (path) {
      const res: Reply = await app.request('GET', path);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(Array.isArray(res.body));
      assert.equal(res.headers.get('x-total-count'), seen.length ? '6' : '5', 'the total now, the later one included');
      seen.push(names(res));
      path = nextOf(res);
      if (seen.length === 1) assert.equal((await create({ name: 'later' })).status, 201, 'created while paging');
    }
    assert.deepEqual(seen, [['p4', 'p3'], ['p2', 'p1'], ['p0']], 'a pipeline created while paging does not shift the pages');
  });

  test(`with no query, a page holds at most ${PAGE_MAX}: the answer is bounded however many are stored`, async () => {
    const store = app.booted.deps.services.pipelines as import('../service/storage/store.js').PipelineStore;
    const now = new Date().toISOString();
    for (let i = 0; i <= PAGE_MAX; i++)
      await store.create({ id: randomUUID(), name: `n${i}`, description: null, steps: [chunk()] as never, created_at: now, updated_at: now });
    const first = await app.request('GET', '/v1/pipelines');
    assert.equal(first.body.length, PAGE_MAX);
    assert.equal(first.headers.get('x-total-count'), String(PAGE_MAX + 1));
    const rest = await app.request('GET', nextOf(first)!);
    assert.deepEqual(names(rest), ['n0']);
    assert.equal(nextOf(rest), undefined);
  });

  test('pipelines stored before the cap (or under a higher one) cannot make a page larger than a full page at the cap', async () => {
    const plugins = tagPluginDir();
    const small = await startApp({ 'max-pipeline-bytes': '1000', 'plugins-dir': plugins });
    try {
      const store = small.booted.deps.services.pipelines as import('../service/storage/store.js').PipelineStore;
      const now = new Date().toISOString();
      // 100 × 1000 bytes is the page budget: pipelines of 40 KB fill it two at a time.
      for (let i = 0; i < 5; i++) {
        await store.create({ id: randomUUID(), name: `old${i}`, description: 'x'.repeat(40_000), steps: [chunk()] as never, created_at: now, updated_at: now });
      }
      const pages: string[][] = [];
      for (let path: string | undefined = '/v1/pipelines'; path;) {
        const res: Reply = await small.request('GET', path);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('x-total-count'), '5');
        pages.push(names(res));
        path = nextOf(res);
      }
      assert.deepEqual(pages, [['old4', 'old3'], ['old2', 'old1'], ['old0']]);
    } finally {
      await small.close();
      rmSync(plugins, { recursive: true, force: true });
    }
  });

  const bad: [string, string, RegExp][] = [
    ['limit=0', 'limit', /limit must be >= 1/],
    [`limit=${PAGE_MAX + 1}`, 'limit', new RegExp(`limit must be <= ${PAGE_MAX}`)],
    ['limit=abc', 'limit', /limit must be integer/],
    ['limit=1.5', 'limit', /limit must be integer/],
    ['limit=', 'limit', /limit must be integer/],
    ['limit=1&limit=2', 'limit', /given 2 times: give it once/],
    ['cursor=nope', 'cursor', /cursor is not one this server gave/],
    ['cursor=', 'cursor', /cursor must NOT have fewer than 1 characters/],
  ];
  for (const [query, field, message] of bad) {
    test(`?${query} → 422 at ["query", "${field}"]`, async () => {
      const res = await app.request('GET', `/v1/pipelines?${query}`);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(res.body.code, 'VALIDATION');
      assert.deepEqual(res.body.detail[0].loc, ['query', field]);
      assert.match(res.body.detail[0].msg, message);
    });
  }
});

describe('unknown ids: 404 on every route', () => {
  const ids = [randomUUID(), 'no-such-id', '123', 'x'.repeat(300), '%F0%9F%A6%9B', "1'%20OR%20'1'='1"];
  const routes: [string, (id: string) => string, unknown][] = [
    ['GET', (id) => `/v1/pipelines/${id}`, undefined],
    ['PUT', (id) => `/v1/pipelines/${id}`, { name: 'n' }],
    ['DELETE', (id) => `/v1/pipelines/${id}`, undefined],
    ['POST', (id) => `/v1/pipelines/${id}/execute`, { text: 'hello' }],
  ];
  for (const [method, path, body] of routes) {
    test(`${method} ${path(':id')}`, async () => {
      await create({ name: 'present' });
      for (const id of ids) {
        const res = await app.request(method, path(id), body);
        assert.equal(res.status, 404, `${id}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.code, 'NOT_FOUND');
        assert.match(res.body.detail, /^Pipeline '.*' not found\./);
      }
    });
  }

  test("a pipeline's name given as its id: the 404 says which id to use", async () => {
    const { id } = (await create({ name: 'by-name' })).body;
    const res = await app.request('GET', '/v1/pipelines/by-name');
    assert.equal(res.status, 404);
    assert.match(res.body.detail, new RegExp(`'by-name' is a pipeline's name; its id is ${id}`));
  });
});

describe('execute: the same kernel path as the endpoints', () => {
  const texts = ['The quick brown fox. 日本語の文章です。🦛🦛 End.', ['First text here.', '', 'Second 👨‍👩‍👧 text.'], []];
  for (const text of texts) {
    test(`${Array.isArray(text) ? `a list of ${text.length}` : 'a string'}: equals chunking then refining by hand`, async () => {
      const { id } = (await create({ name: 'run', steps: [chunk({ chunk_size: 7, chunk_overlap: 2 }), refine({ label: 'a' }), refine({ label: 'b' })] })).body;
      const res = await app.post(`/v1/pipelines/${id}/execute`, { text });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const chunks = (await app.post('/v1/chunk/token', { text, chunk_size: 7, chunk_overlap: 2 })).body;
      const once = (await app.post('/v1/refine/tag', { chunks, label: 'a' })).body;
      const twice = (await app.post('/v1/refine/tag', { chunks: once, label: 'b' })).body;
      assert.deepEqual(res.body, twice);
      if (!Array.isArray(text)) assert.ok((res.body as Chunk[]).every((c) => c.metadata?.label === 'b'));
      else assert.equal(res.body.length, text.length);
    });
  }

  test('offset_unit and return_type work as on the endpoints', async () => {
    const { id } = (await create({ name: 'units', steps: [chunk({ chunk_size: 2 })] })).body;
    for (const extra of [{ offset_unit: 'utf8' }, { offset_unit: 'utf16' }, { return_type: 'texts' }]) {
      const body = { text: 'é🦛 x', ...extra };
      const viaPipeline = await app.post(`/v1/pipelines/${id}/execute`, body);
      const viaEndpoint = await app.post('/v1/chunk/token', { ...body, chunk_size: 2 });
      assert.deepEqual(viaPipeline.body, viaEndpoint.body, JSON.stringify(extra));
    }
  });

  test('the stored defaults are the endpoint defaults', async () => {
    const { id } = (await create({ name: 'defaults', steps: [chunk()] })).body;
    const text = 'x'.repeat(1500);
    assert.deepEqual((await app.post(`/v1/pipelines/${id}/execute`, { text })).body, (await app.post('/v1/chunk/token', { text })).body);
  });

  test('a bad execute body is a 422; the limits are the endpoints’ (413)', async () => {
    const limited = await startApp({ 'plugins-dir': app.settings.pluginsDir.join(','), 'max-texts': '2', 'max-chunks': '3' });
    try {
      const { id } = (await limited.post('/v1/pipelines', { name: 'l', steps: [chunk({ chunk_size: 1 }), refine()] })).body;
      const cases: [unknown, number, RegExp][] = [
        [{}, 422, /Field required: add 'text'/],
        [{ text: 5 }, 422, /text must be a string or a list of strings/],
        [{ text: ['a', 'b', 'c'] }, 413, /--max-texts/],
        [{ text: 'abcd' }, 413, /The request has (at least )?4 chunks; the limit is 3.*--max-chunks/],
      ];
      for (const [body, status, msg] of cases) {
        const res = await limited.post(`/v1/pipelines/${id}/execute`, body);
        assert.equal(res.status, status, JSON.stringify(res.body));
        assert.match(JSON.stringify(res.body.detail), msg);
      }
      assert.equal((await limited.post(`/v1/pipelines/${id}/execute`, { text: 'abc' })).status, 200, 'at the limit is fine');
    } finally {
      await limited.close();
    }
  });

  test('a step whose plugin this server no longer has: 400 saying to update the pipeline', async () => {
    const { id } = (await create({ name: 'stale', steps: [chunk(), refine()] })).body;
    const without = await startApp({ 'data-dir': app.settings.dataDir });
    try {
      assert.equal((await without.request('GET', `/v1/pipelines/${id}`)).status, 200, 'still listed');
      const res = await without.post(`/v1/pipelines/${id}/execute`, { text: 'hello' });
      assert.equal(res.status, 400);
      assert.match(
        res.body.detail,
        new RegExp(`Step 1 of pipeline 'stale' uses the refinery 'tag', which this server does not have: update .*PUT /v1/pipelines/${id}`),
      );
    } finally {
      await without.close();
    }
  });
});

describe('execute in the worker pool, under the request deadline', () => {
  test('a pipeline run past the deadline is a 504 and its pooled work is stopped, as on the endpoints', async () => {
    const busy = busyPluginDir();
    const pooled = await startApp({ 'plugins-dir': busy, workers: '1', 'request-timeout-ms': '1500' });
    const markers = markerDir(busy);
    try {
      await (pooled.booted.deps.executor as WorkerPool).ready;
      const { id } = (await pooled.post('/v1/pipelines', { name: 'slow', steps: [{ type: 'chunk', chunker: 'busy', config: { marker_dir: markers } }] })).body;
      const res = await pooled.post(`/v1/pipelines/${id}/execute`, { text: BIG_TEXT });
      assert.equal(res.status, 504, JSON.stringify(res.body));
      assert.ok(existsSync(join(markers, 'started')), 'the job ran in a worker');
      writeFileSync(join(markers, 'release'), '');
      // Had the worker survived, it would see the release file and write `finished` within milliseconds.
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(existsSync(join(markers, 'finished')), false, 'the abandoned job kept running');
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await pooled.close();
      rmSync(busy, { recursive: true, force: true });
    }
  });
});

describe('a write that outlasts the request deadline', () => {
  test('is answered 504 and stores nothing, even when its check finishes later', async () => {
    const slow = slowBuildPluginDir();
    const timed = await startApp({ 'plugins-dir': slow, 'request-timeout-ms': '1000' });
    const markers = markerDir(slow);
    try {
      const res = await timed.post('/v1/pipelines', { name: 'late', steps: [{ type: 'chunk', chunker: 'slowbuild', config: { marker_dir: markers } }] });
      assert.equal(res.status, 504);
      writeFileSync(join(markers, 'release'), '');
      // The abandoned handler resumes once the plugin is built; a second create of the name shows whether it wrote.
      const again = await timed.post('/v1/pipelines', { name: 'late', steps: [{ type: 'chunk', chunker: 'slowbuild', config: { marker_dir: markers } }] });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal((await timed.request('GET', '/v1/pipelines')).body.length, 1);
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await timed.close();
      rmSync(slow, { recursive: true, force: true });
    }
  });
});

describe('concurrency: the database decides, never a 5xx', () => {
  test('50 parallel creates of one name: exactly one 201, the rest 409', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, () => create({ name: 'race' })));
    const statuses = replies.map((r) => r.status).sort();
    assert.deepEqual(statuses, [201, ...Array(49).fill(409)]);
    assert.equal((await app.request('GET', '/v1/pipelines')).body.length, 1);
  });

  test('parallel creates, renames, updates and deletes over a few names', async () => {
    const ids = await Promise.all(['p0', 'p1', 'p2'].map(async (name) => (await create({ name })).body.id as string));
    const ops = Array.from({ length: 120 }, (_, i) => {
      const id = ids[i % ids.length]!;
      const name = `p${i % 5}`;
      switch (i % 4) {
        case 0:
          return create({ name });
        case 1:
          return app.request('PUT', `/v1/pipelines/${id}`, { name, steps: [chunk({ chunk_size: 1 + i })] });
        case 2:
          return app.request('PUT', `/v1/pipelines/${id}`, { description: `d${i}` });
        default:
          return i % 8 === 3 ? app.request('DELETE', `/v1/pipelines/${id}`) : app.request('GET', `/v1/pipelines/${id}`);
      }
    });
    const statuses = new Set((await Promise.all(ops)).map((r) => r.status));
    for (const s of statuses) assert.ok([200, 201, 204, 404, 409].includes(s), `status ${s}`);
    const names = ((await app.request('GET', '/v1/pipelines')).body as { name: string }[]).map((p) => p.name);
    assert.equal(new Set(names).size, names.length, 'names stay unique');
  });
});

describe('OpenAPI', () => {
  test('the pipeline shapes are named components, referenced by the routes, and their examples are accepted', async () => {
    const doc = (await app.request('GET', '/openapi.json')).body;
    const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
    const json = (op: any, status?: number) => (status ? op.responses[status] : op.requestBody).content['application/json'].schema;
    const paths = doc.paths;
    assert.deepEqual(json(paths['/v1/pipelines'].post), ref('PipelineCreate'));
    assert.deepEqual(json(paths['/v1/pipelines'].post, 201), ref('Pipeline'));
    assert.deepEqual(json(paths['/v1/pipelines'].get, 200).items, ref('Pipeline'));
    const query = paths['/v1/pipelines'].get.parameters.filter((p: { in: string }) => p.in === 'query');
    assert.deepEqual(
      query.map((p: { name: string; required: boolean; schema: { type: string } }) => [p.name, p.required, p.schema.type]),
      [
        ['limit', false, 'integer'],
        ['cursor', false, 'string'],
      ],
    );
    assert.equal(query[0].schema.maximum, PAGE_MAX);
    assert.ok(paths['/v1/pipelines'].get.responses[200].headers['X-Total-Count'] && paths['/v1/pipelines'].get.responses[200].headers.Link);
    assert.deepEqual(json(paths['/v1/pipelines/{id}'].put), ref('PipelineUpdate'));
    assert.deepEqual(json(paths['/v1/pipelines/{id}/execute'].post), ref('PipelineExecuteRequest'));
    assert.deepEqual(doc.components.schemas.Pipeline.properties.steps.items, ref('PipelineStep'));
    assert.equal(paths['/v1/pipelines/{id}'].delete.responses[204].content, undefined, '204 has no body');
    for (const op of [
      paths['/v1/pipelines/{id}'].get,
      paths['/v1/pipelines/{id}'].put,
      paths['/v1/pipelines/{id}'].delete,
      paths['/v1/pipelines/{id}/execute'].post,
    ]) {
      assert.ok(op.responses[404], `${op.operationId} documents its 404`);
    }
    const [example] = doc.components.schemas.PipelineCreate.examples;
    const created = await app.post('/v1/pipelines', example);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    for (const [schema, path] of [
      ['PipelineUpdate', `/v1/pipelines/${created.body.id}`],
      ['PipelineExecuteRequest', `/v1/pipelines/${created.body.id}/execute`],
    ] as const) {
      const body = doc.components.schemas[schema].examples[0];
      assert.equal((await app.request(path.endsWith('execute') ? 'POST' : 'PUT', path, body)).status, 200, schema);
    }
  });
});

test('docs/pipelines.md shows a curl example for every pipeline route', () => {
  const page = readFileSync(join(ROOT, 'docs/pipelines.md'), 'utf8');
  // A line may capture an answer (id=$(curl …)); an id in a path is the captured `$id`, quoted.
  const curls = page.split('\n').filter((l) => /^(\w+=\$\()?curl /.test(l));
  for (const r of app.booted.app.routes.filter((x) => x.path.startsWith('/v1/pipelines'))) {
    const path = new RegExp(`localhost:8000${r.path.replace(':id', '\\$id')}("| |$)`);
    // curl's default is GET, and POST when it sends a body (-d): only PUT and DELETE need -X.
    const flag = ['put', 'delete'].includes(r.method) ? `-X ${r.method.toUpperCase()} ` : '';
    assert.ok(
      curls.some((l) => path.test(l) && (flag ? l.includes(flag) : !l.includes('-X '))),
      `${r.method.toUpperCase()} ${r.path}`,
    );
  }
});
