/**
 * Stores on the HTTP surfaces (issue 31, sections 4): a stored pipeline's write step, the slug
 * API's flat write step as Chonkie's Python client sends it, GET /v1/stores, search and delete, on
 * the embedded default store (LanceDB under the data directory, the connection `default`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { EMBEDDED_MODEL } from '../kernel/fields.js';
import { startApp, type TestApp } from './helpers/app.js';
import { writeModel2Vec } from './helpers/tiny-models.js';

const TEXT =
  'The river flooded the valley 🌊. Farmers moved their herds uphill.\r\n\r\nIn spring the water receded and the fields were green again. 新しい段落。';
const OTHER = 'Bees visit the orchard in April. The honey harvest comes in late summer, after the lavender.';
const TINY = 'minishlab/potion-retrieval-32M';

interface Hit {
  id: string;
  text: string;
  start_index: number;
  end_index: number;
  token_count: number;
  metadata: { document: string };
  score: number;
}

let app: TestApp;
before(async () => {
  const words = ['river', 'valley', 'farmers', 'spring', 'water', 'bees', 'honey', 'orchard'];
  const model = await writeModel2Vec(
    words,
    words.map((_, i) => [Math.cos(i), Math.sin(i), 1]),
  );
  app = await startApp({ 'model-map': `${TINY}=${model}` });
});
after(() => app.close());

const codepoints = (s: string, a: number, b: number) => Array.from(s).slice(a, b).join('');
const stores = async () =>
  (await app.request('GET', '/v1/stores')).body as {
    name: string;
    handshake: string;
    collections: { name: string; count: number; model: string | null; dimension: number | null }[];
  }[];
const collection = async (name: string) => (await stores()).find((s) => s.name === 'default')!.collections.find((c) => c.name === name);
/** A search, by vector unless a mode is named: most chunks here are 8 tokens, word fragments that no full-text index matches. */
const search = (body: Record<string, unknown>, store = 'default') => app.post(`/v1/stores/${store}/search`, { mode: 'vector', ...body });

async function pipeline(name: string, steps: unknown[]): Promise<string> {
  const res = await app.post('/v1/pipelines', { name, steps });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.id;
}

describe('GET /v1/stores', () => {
  test('the embedded default: one LanceDB connection named default, nothing secret', async () => {
    const res = await app.request('GET', '/v1/stores');
    assert.equal(res.status, 200);
    const entry = res.body.find((s: { name: string }) => s.name === 'default');
    assert.equal(entry.handshake, 'lancedb');
    assert.ok(Array.isArray(entry.collections));
    assert.doesNotMatch(JSON.stringify(res.body), /path|url|password|chunkd-test-/i);
  });
});

describe('a stored pipeline with a write step', () => {
  const chunk = { type: 'chunk', chunker: 'token', config: { chunk_size: 8 } };
  let writer: string;
  let plain: string;
  let docA = 0;
  before(async () => {
    writer = await pipeline('rivers-write', [chunk, { type: 'write', store: 'default', config: { collection: 'rivers' } }]);
    plain = await pipeline('rivers-plain', [chunk]);
  });

  test('is stored as sent, the write step last', async () => {
    const res = await app.request('GET', `/v1/pipelines/${writer}`);
    assert.deepEqual(res.body.steps.at(-1), { type: 'write', store: 'default', config: { collection: 'rivers' } });
  });

  test('execute writes the document and answers the chunks as without the step', async () => {
    const run = await app.post(`/v1/pipelines/${writer}/execute`, { text: TEXT, document: 'doc-1' });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    const without = await app.post(`/v1/pipelines/${plain}/execute`, { text: TEXT });
    assert.deepEqual(run.body, without.body);
    const info = await collection('rivers');
    assert.deepEqual(info, { name: 'rivers', count: run.body.length, model: EMBEDDED_MODEL, dimension: 100, default_mode: 'text' });
  });

  test('search answers chunks of the document, best first, with offsets into its text and a score', async () => {
    const res = await search({ collection: 'rivers', query: 'farmers and their herds', k: 3 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const hits = res.body as Hit[];
    assert.equal(hits.length, 3);
    for (const h of hits) {
      assert.equal(h.metadata.document, 'doc-1');
      assert.equal(typeof h.score, 'number');
      assert.equal(codepoints(TEXT, h.start_index, h.end_index), h.text);
      assert.ok(h.token_count > 0);
    }
    assert.ok(
      hits.every((h, i) => i === 0 || hits[i - 1]!.score >= h.score),
      'best first',
    );
    assert.match(hits[0]!.text, /Farmers|herds/);
  });

  test('running the same document again replaces its chunks: one copy; a changed text replaces them', async () => {
    const first = await app.post(`/v1/pipelines/${writer}/execute`, { text: TEXT, document: 'doc-1' });
    assert.equal((await collection('rivers'))!.count, first.body.length);
    const changed = await app.post(`/v1/pipelines/${writer}/execute`, { text: OTHER, document: 'doc-1' });
    assert.equal((await collection('rivers'))!.count, changed.body.length);
    const hits = (await search({ collection: 'rivers', query: 'honey', k: 50 })).body as Hit[];
    assert.ok(hits.every((h) => codepoints(OTHER, h.start_index, h.end_index) === h.text));
    await app.post(`/v1/pipelines/${writer}/execute`, { text: TEXT, document: 'doc-1' });
  });

  test('without document the id is the text’s SHA-256; a list names one per text; filter keeps one document', async () => {
    const before = (await collection('rivers'))!.count;
    const run = await app.post(`/v1/pipelines/${writer}/execute`, { text: OTHER });
    assert.equal(run.status, 200);
    assert.equal((await collection('rivers'))!.count, before + run.body.length);
    const digest = (await import('node:crypto')).createHash('sha256').update(OTHER).digest('hex');
    const mine = (await search({ collection: 'rivers', query: 'honey harvest', k: 100, filter: { document: digest } })).body as Hit[];
    assert.ok(mine.length > 0);
    assert.ok(mine.every((h) => h.metadata.document === digest && run.body.some((c: Hit) => c.start_index === h.start_index && c.text === h.text)));
    const batch = await app.post(`/v1/pipelines/${writer}/execute`, { text: [TEXT, OTHER], document: ['doc-a', 'doc-b'] });
    assert.equal(batch.status, 200);
    assert.equal((await collection('rivers'))!.count, before + run.body.length + batch.body[0].length + batch.body[1].length);
    docA = batch.body[0].length;
    const b = (await search({ collection: 'rivers', query: 'honey harvest', k: 100, filter: { document: 'doc-b' } })).body as Hit[];
    assert.ok(b.length > 0);
    assert.ok(b.every((h) => h.metadata.document === 'doc-b'));
  });

  test('DELETE removes a document’s chunks: 204, then gone from search', async () => {
    const before = (await collection('rivers'))!.count;
    const doomed = (await search({ collection: 'rivers', query: 'farmers herds', k: 100, filter: { document: 'doc-a' } })).body as Hit[];
    assert.ok(doomed.length > 0);
    const res = await app.request('DELETE', '/v1/stores/default/collections/rivers/documents/doc-a');
    assert.equal(res.status, 204);
    assert.deepEqual((await search({ collection: 'rivers', query: 'farmers herds', k: 100, filter: { document: 'doc-a' } })).body, []);
    assert.equal((await collection('rivers'))!.count, before - docA);
  });

  test('an embeddings step with another model than the collection’s: 409 naming both models', async () => {
    const other = await pipeline('rivers-tiny', [
      chunk,
      { type: 'refine', refinery: 'embeddings', config: { embedding_model: TINY } },
      { type: 'write', store: 'default', config: { collection: 'rivers' } },
    ]);
    const res = await app.post(`/v1/pipelines/${other}/execute`, { text: TEXT, document: 'doc-9' });
    assert.equal(res.status, 409, JSON.stringify(res.body));
    assert.match(res.body.detail, new RegExp(`${EMBEDDED_MODEL}.*${TINY}|${TINY}.*${EMBEDDED_MODEL}`));
  });

  test('a pipeline whose own embeddings step embeds: the answer keeps the embeddings, the collection records that model', async () => {
    const id = await pipeline('tiny-write', [
      chunk,
      { type: 'refine', refinery: 'embeddings', config: { embedding_model: TINY } },
      { type: 'write', store: 'default', config: { collection: 'tiny' } },
    ]);
    const res = await app.post(`/v1/pipelines/${id}/execute`, { text: OTHER, document: 'bees' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.every((c: { embedding: number[] }) => c.embedding.length === 3));
    assert.deepEqual(await collection('tiny'), { name: 'tiny', count: res.body.length, model: TINY, dimension: 3, default_mode: 'hybrid' });
    const hits = await search({ collection: 'tiny', embedding: res.body[0].embedding, k: 1 });
    assert.equal(hits.status, 200, JSON.stringify(hits.body));
    assert.equal(hits.body[0].id !== undefined, true);
    assert.equal(hits.body[0].text, res.body[0].text);
  });
});

describe('write steps are checked when the pipeline is written', () => {
  const chunk = { type: 'chunk', chunker: 'token', config: {} };
  const create = (steps: unknown[]) => app.post('/v1/pipelines', { name: `bad-${Math.random()}`, steps });

  test('an unknown store: 422 listing the connections', async () => {
    const res = await create([chunk, { type: 'write', store: 'defualt', config: { collection: 'docs' } }]);
    assert.equal(res.status, 422);
    const issue = res.body.detail.find((i: { loc: unknown[] }) => i.loc.join('.') === 'body.steps.1.store');
    assert.match(issue.msg, /Did you mean 'default'\?.*Valid: default/);
  });

  test('a URL, path or credential anywhere in the step: 422 naming the field', async () => {
    for (const [step, field] of [
      [{ type: 'write', store: 'default', config: { collection: 'docs', url: 'http://10.0.0.1:6333' } }, 'body.steps.1.config.url'],
      [{ type: 'write', store: 'default', path: '/etc', config: { collection: 'docs' } }, 'body.steps.1.path'],
      [{ type: 'write', store: 'default', config: { collection: 'docs', api_key: 'sk-secret' } }, 'body.steps.1.config.api_key'],
    ] as const) {
      const res = await create([chunk, step]);
      assert.equal(res.status, 422, JSON.stringify(res.body));
      const issue = res.body.detail.find((i: { loc: unknown[] }) => i.loc.join('.') === field);
      assert.ok(issue, `${field}: ${JSON.stringify(res.body.detail)}`);
      // A step's own keys are fixed by its schema (any other is an unknown field); inside config the message says why.
      if (field.includes('config')) assert.match(issue.msg, /never a URL, host, path or credential.*--stores/);
      assert.doesNotMatch(JSON.stringify(res.body), /sk-secret|10\.0\.0\.1/, 'the value is not echoed');
    }
  });

  test('a write step not last, or without a chunk step, or without a collection: 422 each', async () => {
    const write = { type: 'write', store: 'default', config: { collection: 'docs' } };
    assert.equal((await create([chunk, write, { type: 'refine', refinery: 'overlap', config: {} }])).status, 422);
    assert.equal((await create([write])).status, 422);
    const missing = await create([chunk, { type: 'write', store: 'default', config: {} }]);
    assert.equal(missing.status, 422);
    assert.ok(missing.body.detail.some((i: { loc: unknown[] }) => i.loc.join('.') === 'body.steps.1.config.collection'));
  });
});

describe('search bodies', () => {
  test('unknown store 404 with the connections; neither or both of query and embedding 422; a host in the body 422', async () => {
    const unknown = await search({ collection: 'rivers', query: 'x' }, 'defualt');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.detail, /default/);
    assert.equal((await search({ collection: 'rivers' })).status, 422);
    assert.equal((await search({ collection: 'rivers', query: 'x', embedding: [1] })).status, 422);
    const host = await search({ collection: 'rivers', query: 'x', host: 'db.internal' });
    assert.equal(host.status, 422);
    assert.deepEqual(host.body.detail[0].loc, ['body', 'host']);
  });
});

describe('search modes on the default LanceDB store, with the built-in model', () => {
  const NOTES = [
    'The quarterly budget review is on Monday. Bring the spreadsheet.',
    'Our office plants need water twice a week. The ficus is thirsty.',
    'A tardigrade survives vacuum and radiation. It is a tiny animal.',
  ].join('\n\n');
  const ask = (body: Record<string, unknown>) => app.post('/v1/stores/default/search', { collection: 'notes', k: 3, ...body });
  before(async () => {
    const writer = await pipeline('notes-write', [
      { type: 'chunk', chunker: 'sentence', config: { chunk_size: 16 } },
      { type: 'write', store: 'default', config: { collection: 'notes' } },
    ]);
    assert.equal((await app.post(`/v1/pipelines/${writer}/execute`, { text: NOTES, document: 'notes.txt' })).status, 200);
  });

  test('text finds the chunk holding a rare word first; the header names the mode', async () => {
    const res = await ask({ query: 'tardigrade', mode: 'text' });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.headers.get('x-chunkd-search-mode'), 'text');
    assert.match((res.body as Hit[])[0]!.text, /tardigrade/);
  });

  test("no mode: the built-in model's default, text; vector and hybrid when asked, each named", async () => {
    const plain = await ask({ query: 'What survives radiation?' });
    assert.equal(plain.status, 200, JSON.stringify(plain.body));
    assert.equal(plain.headers.get('x-chunkd-search-mode'), 'text');
    assert.match((plain.body as Hit[])[0]!.text, /radiation/);
    for (const mode of ['vector', 'hybrid']) {
      const res = await ask({ query: 'What survives radiation?', mode });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.headers.get('x-chunkd-search-mode'), mode);
      assert.equal((res.body as Hit[]).length, 3, `${mode}: the vector list fills k`);
    }
    // hybrid with the built-in model's rule: BM25's order first
    const hybrid = (await ask({ query: 'What survives radiation?', mode: 'hybrid' })).body as Hit[];
    assert.equal(hybrid[0]!.id, (plain.body as Hit[])[0]!.id);
    // an embedding alone runs by vector
    const byVector = await ask({ embedding: Array.from({ length: 100 }, (_, i) => (i === 0 ? 1 : 0)) });
    assert.equal(byVector.headers.get('x-chunkd-search-mode'), 'vector');
  });

  test('"mode": "nope" is a 422 naming the modes; text with an embedding alone is a 422 saying to send query', async () => {
    const nope = await ask({ query: 'budget', mode: 'nope' });
    assert.equal(nope.status, 422, JSON.stringify(nope.body));
    assert.deepEqual(nope.body.detail[0].loc, ['body', 'mode']);
    assert.match(JSON.stringify(nope.body.detail), /vector.*text.*hybrid/);
    const noWords = await ask({ embedding: Array.from({ length: 100 }, () => 0.1), mode: 'text' });
    assert.equal(noWords.status, 422, JSON.stringify(noWords.body));
    assert.match(JSON.stringify(noWords.body.detail), /send query/);
  });
});

describe("the slug API's flat write step, as Chonkie's Python client sends it", () => {
  // Pipeline(slug).chunk_with("recursive", chunk_size=64).store_in("lancedb", table_name="py_docs") serialises each step as
  // {"type", "component", **kwargs}: POST /v1/pipeline {slug, description: None, steps}, then POST /v1/pipeline/{slug} {text}.
  const body = (slug: string, write: Record<string, unknown>) => ({
    slug,
    description: null,
    steps: [{ type: 'chunk', component: 'recursive', chunk_size: 64 }, write],
  });

  test('store_in("lancedb", table_name=…) writes to the default connection; the step is shown flat', async () => {
    const created = await app.post('/v1/pipeline', body('py-lance', { type: 'write', component: 'lancedb', table_name: 'py_docs' }));
    assert.equal(created.status, 200, JSON.stringify(created.body));
    assert.deepEqual(created.body.steps[1], { type: 'write', component: 'lancedb', table_name: 'py_docs' });
    const stored = (await app.request('GET', `/v1/pipelines/${created.body.id}`)).body;
    assert.deepEqual(stored.steps[1], { type: 'write', store: 'default', config: { collection: 'py_docs' } });
    const run = await app.post('/v1/pipeline/py-lance', { text: TEXT });
    assert.equal(run.status, 200, JSON.stringify(run.body));
    assert.ok(run.body.chunks.length > 0);
    assert.equal((await collection('py_docs'))!.count, run.body.chunks.length);
  });

  test('collection_name is accepted too; a handshake the server has no connection of is a 422 listing the connections', async () => {
    const named = await app.post('/v1/pipeline', body('py-named', { type: 'write', component: 'lancedb', collection_name: 'named' }));
    assert.equal(named.status, 200, JSON.stringify(named.body));
    const qdrant = await app.post(
      '/v1/pipeline',
      body('py-qdrant', { type: 'write', component: 'qdrant', collection_name: 'docs', url: 'http://localhost:6333' }),
    );
    assert.equal(qdrant.status, 422);
    const messages = JSON.stringify(qdrant.body.detail);
    assert.match(messages, /no store connection of the handshake 'qdrant'.*default \(lancedb\)/);
    assert.match(messages, /url: a request names a store connection/);
  });

  test('validate answers the stored form of a write step, flat', async () => {
    const res = await app.post('/v1/pipeline/validate', { steps: body('x', { type: 'write', component: 'lancedb', table_name: 't' }).steps });
    assert.equal(res.status, 200);
    assert.equal(res.body.valid, true, JSON.stringify(res.body));
    assert.deepEqual(res.body.steps[1], { type: 'write', component: 'lancedb', table_name: 't' });
  });
});

describe('API keys apply to the store routes', () => {
  let keyed: TestApp;
  before(async () => {
    keyed = await startApp({ 'api-keys': 'k-1' });
  });
  after(() => keyed.close());
  test('401 without the key, 200 with it', async () => {
    assert.equal((await keyed.request('GET', '/v1/stores')).status, 401);
    assert.equal((await keyed.request('POST', '/v1/stores/default/search', { collection: 'x', query: 'y' })).status, 401);
    assert.equal((await keyed.request('DELETE', '/v1/stores/default/collections/x/documents/y')).status, 401);
    assert.equal((await keyed.request('GET', '/v1/stores', undefined, { authorization: 'Bearer k-1' })).status, 200);
  });
});
