/**
 * A folder's journey over HTTP, in-process: a pipeline reading each document by its type ("chef":
 * "auto"), runs that carry a name and the user's metadata onto every stored row, search filters on
 * metadata (values literal, a bad filter a 422), a collection's documents listed page by page, and
 * the collection dropped (embedded LanceDB default store).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startApp, type TestApp } from './helpers/app.js';
import { submitJob, waitForJob } from './helpers/jobs.js';

type Hit = { text: string; metadata: Record<string, unknown> & { document: string }; score: number };

async function upload(app: TestApp, content: string, filename: string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([content], { type }), filename);
  const res = await fetch(`${app.url}/v1/files`, { method: 'POST', body: form });
  return (await res.json()) as { name: string };
}

describe('a collection from documents with names and metadata', () => {
  let app: TestApp;
  let pipeline: string;
  const search = (body: Record<string, unknown>) => app.post('/v1/stores/default/search', { collection: 'journey', k: 50, ...body });
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  test('"chef": "auto" is stored as is; it takes no config', async () => {
    const steps = [
      { type: 'process', chef: 'auto' },
      { type: 'chunk', chunker: 'sentence', config: { chunk_size: 16 } },
      { type: 'write', store: 'default', config: { collection: 'journey' } },
    ];
    const made = await app.post('/v1/pipelines', { name: 'journey', steps });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(made.body.steps[0], { type: 'process', chef: 'auto', config: {} });
    pipeline = made.body.id;
    const bad = await app.post('/v1/pipelines', { name: 'bad', steps: [{ ...steps[0], config: { x: 1 } }, ...steps.slice(1)] });
    assert.equal(bad.status, 422);
    assert.match(JSON.stringify(bad.body), /takes no config/);
  });

  test('a run writes its metadata on every row; an uploaded file is read by its type and named by its file name', async () => {
    const a = await app.post(`/v1/pipelines/${pipeline}/execute`, {
      text: 'Bees visit the orchard in April. The honey harvest comes late.',
      document: 'bees',
      metadata: { team: 'docs', lang: 'en', year: 2024 },
    });
    assert.equal(a.status, 200, JSON.stringify(a.body));
    const b = await app.post(`/v1/pipelines/${pipeline}/execute`, {
      text: 'Rivers flood the valley in spring.',
      document: 'rivers',
      metadata: { team: 'ops', lang: 'fr' },
    });
    assert.equal(b.status, 200, JSON.stringify(b.body));
    const file = await upload(
      app,
      '<html><head><style>p { color: red }</style></head><body><h1>Lamps</h1><p>The keeper trims the wick.</p></body></html>',
      'lamps.html',
      'text/html',
    );
    const c = await app.post(`/v1/pipelines/${pipeline}/execute`, { file: { type: 'document', content: file.name }, metadata: { team: 'docs' } });
    assert.equal(c.status, 200, JSON.stringify(c.body));
    const lamps = (await search({ query: 'keeper wick', filter: { document: file.name } })).body as Hit[];
    assert.ok(lamps.length > 0);
    for (const h of lamps) {
      assert.equal(h.metadata.name, 'lamps.html');
      assert.equal(h.metadata.team, 'docs');
      assert.doesNotMatch(h.text, /<|color/);
    }
    const bees = (await search({ query: 'honey', filter: { document: 'bees' } })).body as Hit[];
    assert.deepEqual([bees[0]!.metadata.team, bees[0]!.metadata.lang, bees[0]!.metadata.year], ['docs', 'en', 2024]);
  });

  test("a key of chunkd's own, or metadata that is not flat, is a 422 naming it", async () => {
    for (const [metadata, pattern] of [
      [{ headings: 'x' }, /'headings' is a key chunkd writes itself/],
      [{ name: 'x' }, /'name' is a key chunkd writes itself/],
      [{ nested: { a: 1 } }, /metadata/],
      [{ big: 'x'.repeat(1001) }, /metadata/],
    ] as const) {
      const res = await app.post(`/v1/pipelines/${pipeline}/execute`, { text: 'Some text.', document: 'x', metadata });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.match(JSON.stringify(res.body), pattern);
    }
  });

  test('a metadata filter keeps only matching chunks; an injection is a literal; a malformed filter is a 422', async () => {
    // by vector, so every chunk is a candidate and the filter alone decides ('the' is in no full-text index)
    const docs = async (filter: Record<string, unknown>) =>
      new Set(((await search({ query: 'the', mode: 'vector', filter })).body as Hit[]).map((h) => h.metadata.document));
    assert.deepEqual([...(await docs({ metadata: { team: 'ops' } }))], ['rivers']);
    assert.deepEqual([...(await docs({ metadata: { team: 'docs', lang: 'en' } }))], ['bees']);
    assert.deepEqual([...(await docs({ metadata: { lang: { in: ['en', 'fr'] } } }))].sort(), ['bees', 'rivers']);
    assert.deepEqual([...(await docs({ metadata: { team: "docs' OR '1'='1" } }))], []);
    assert.deepEqual([...(await docs({ metadata: { team: '%' } }))], []);
    for (const filter of [{ metadata: { team: { like: 'd%' } } }, { metadata: { 'team = 1 OR x': 'a' } }, { metadata: { team: null } }, { where: 'x' }]) {
      const res = await search({ query: 'the', filter });
      assert.equal(res.status, 422, JSON.stringify(filter));
    }
  });

  test('GET …/documents lists each document with its name and chunk count, a page at a time', async () => {
    const first = await app.request('GET', '/v1/stores/default/collections/journey/documents?limit=2');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.documents.length, 2);
    assert.ok(first.body.next_cursor);
    const rest = await app.request('GET', `/v1/stores/default/collections/journey/documents?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`);
    const all = [...first.body.documents, ...rest.body.documents] as { document: string; name: string | null; chunks: number }[];
    assert.equal(rest.body.next_cursor, null);
    assert.deepEqual(
      all.map((d) => d.document),
      all.map((d) => d.document).sort(),
    );
    assert.equal(all.length, 3);
    assert.equal(all.find((d) => d.name === 'lamps.html')?.document.startsWith('file_'), true);
    assert.ok(all.every((d) => d.chunks > 0));
    assert.equal((await app.request('GET', '/v1/stores/default/collections/nope/documents')).status, 404);
    assert.equal((await app.request('GET', '/v1/stores/default/collections/journey/documents?limit=0')).status, 422);
  });

  test('DELETE …/collections/{c} drops it: gone from the listing and from search; a second delete is a 404', async () => {
    const res = await app.request('DELETE', '/v1/stores/default/collections/journey');
    assert.equal(res.status, 204);
    const stores = (await app.request('GET', '/v1/stores')).body as { collections: { name: string }[] }[];
    assert.ok(!stores[0]!.collections.some((c) => c.name === 'journey'));
    assert.equal((await search({ query: 'honey' })).status, 404);
    assert.equal((await app.request('DELETE', '/v1/stores/default/collections/journey')).status, 404);
  });
});

describe('a job over uploaded files', () => {
  let app: TestApp;
  before(async () => {
    app = await startApp();
  });
  after(() => app.close());

  test('one request fills a collection from three uploaded files; each hit carries its file name and the metadata sent with it', async () => {
    const files = [
      await upload(app, '# Bees\n\nBees visit the orchard in April.\n', 'bees.md', 'text/markdown'),
      await upload(app, '<html><body><h1>Lamps</h1><p>The keeper trims the wick.</p></body></html>', 'lamps.html', 'text/html'),
      await upload(app, 'city,river\nParis,Seine\n', 'rivers.csv', 'text/csv'),
    ];
    const documents = files.map((f, i) => ({ id: `doc-${i}`, file: f.name, metadata: { team: i === 1 ? 'ops' : 'docs', n: i } }));
    const steps = [
      { type: 'process', chef: 'auto' },
      { type: 'chunk', chunker: 'sentence', config: { chunk_size: 32 } },
      { type: 'write', store: 'default', config: { collection: 'uploads' } },
    ];
    const submitted = await submitJob(app.url, { steps, documents });
    assert.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const done = await waitForJob(app.url, submitted.body.id);
    assert.deepEqual([done.status, done.documents.done, done.documents.failed], ['done', 3, 0]);
    const hits = (await app.post('/v1/stores/default/search', { collection: 'uploads', query: 'the', mode: 'vector', k: 50 })).body as Hit[];
    const byDoc = new Map(hits.map((h) => [h.metadata.document, h.metadata]));
    assert.deepEqual([...byDoc.keys()].sort(), ['doc-0', 'doc-1', 'doc-2']);
    assert.deepEqual(
      ['doc-0', 'doc-1', 'doc-2'].map((d) => [byDoc.get(d)!.name, byDoc.get(d)!.team, byDoc.get(d)!.n]),
      [
        ['bees.md', 'docs', 0],
        ['lamps.html', 'ops', 1],
        ['rivers.csv', 'docs', 2],
      ],
    );
    assert.ok(
      hits.every((h) => !/<\w/.test(h.text)),
      'no markup',
    );
    // Each file runs with the structure its chef found at upload, as a run by `file` does: the headings reach the rows.
    assert.deepEqual(byDoc.get('doc-0')!.headings, ['Bees']);
    assert.deepEqual(byDoc.get('doc-1')!.headings, ['Lamps']);
    const ops = (
      await app.post('/v1/stores/default/search', { collection: 'uploads', query: 'the', mode: 'vector', k: 50, filter: { metadata: { team: 'ops' } } })
    ).body as Hit[];
    assert.ok(ops.length > 0 && ops.every((h) => h.metadata.name === 'lamps.html'));
  });

  test('a document with both text and file, an unknown file, or a reserved metadata key is a 422 at its loc, and nothing is queued', async () => {
    const steps = [{ type: 'chunk', chunker: 'sentence' }];
    for (const [doc, pattern] of [
      [{ id: 'a', text: 'x', file: 'file_0' }, /either text or file/],
      [{ id: 'a', file: 'file_00000000000000000000000000000000' }, /No uploaded file named/],
      [{ id: 'a', text: 'x', metadata: { document: 'y' } }, /'document' is a key chunkd writes itself/],
    ] as const) {
      const res = await submitJob(app.url, { steps, documents: [doc] });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.match(JSON.stringify(res.body), pattern);
    }
  });
});
