/**
 * What a store cannot keep or search is refused with a 422 naming the field, on LanceDB and on
 * pgvector (PGlite), through the Stores service every surface writes by: NUL characters and lone
 * surrogates in ids, texts and metadata, vectors that are NaN, infinite or all zeros (written or
 * searched), more dimensions than the engine keeps, two documents of one id. A refused write
 * leaves the collection as it was, and searchable. Then the surfaces: a run's document ids, a job's.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { Stores } from '../service/stores/stores.js';
import { startApp, type TestApp } from './helpers/app.js';
import { pgliteEngine } from './helpers/pglite.js';

const registry = await discover();
const chunk = (text: string, embedding: number[], metadata: Record<string, unknown> = {}): Chunk => ({
  id: 'x',
  text,
  start_index: 0,
  end_index: text.length,
  token_count: 1,
  embedding,
  metadata,
});
const good = (text = 'fine text') => [chunk(text, [1, 0.5])];

type Refusal = { status: number; detail: { loc: (string | number)[]; msg: string }[] };
const refused = (loc: (string | number)[], msg: RegExp) => (e: Refusal) => {
  assert.equal(e.status, 422, String(e));
  assert.deepEqual(e.detail[0]!.loc, loc);
  assert.match(e.detail[0]!.msg, msg);
  return true;
};

const engines: Record<string, () => Promise<{ config: Record<string, unknown>; stop(): Promise<void> }>> = {
  async lancedb() {
    const path = mkdtempSync(join(tmpdir(), 'chunkd-refusals-'));
    return { config: { path }, stop: async () => rmSync(path, { recursive: true, force: true }) };
  },
  pgvector: pgliteEngine,
};

for (const [handshake, start] of Object.entries(engines)) {
  describe(`${handshake}: refused before the store, with a 422 naming the field`, () => {
    let engine: Awaited<ReturnType<typeof start>>;
    let stores: Stores;
    before(async () => {
      engine = await start();
      const config = registry.get('handshake', handshake).validateConfig({ ...engine.config }, []);
      stores = new Stores(registry, [{ name: 's', handshake, config, secrets: [] }], { replicaSet: false });
      await stores.write('s', 'docs', 'kept', good('the kept text'), 'm');
    });
    after(async () => {
      await stores?.close();
      await engine?.stop();
    });

    const stillSearchable = async () => {
      const hits = await stores.search('s', { collection: 'docs', embedding: [1, 0.5], k: 10 });
      assert.deepEqual(
        hits.map((h) => h.document),
        ['kept'],
      );
    };

    test('NUL characters and lone surrogates in a document id, a text, metadata values and keys', async () => {
      const cases: [string, Chunk[], (string | number)[], RegExp][] = [
        ['a\u0000b', good(), ['body', 'document'], /document id holds a NUL character/],
        ['a\ud800b', good(), ['body', 'document'], /document id holds a lone UTF-16 surrogate/],
        ['d', [chunk('nul \u0000 here', [1, 0])], ['chunks', 0, 'text'], /text holds a NUL character/],
        ['d', [chunk('half \udc00', [1, 0])], ['chunks', 0, 'text'], /text holds a lone UTF-16 surrogate/],
        ['d', [chunk('ok', [1, 0], { heading: ['fine', 'bad \ud83d'] })], ['chunks', 0, 'metadata', 'heading', 1], /metadata holds a lone UTF-16 surrogate/],
        ['d', [chunk('ok', [1, 0], { 'k\u0000': 1 })], ['chunks', 0, 'metadata', 'k\u0000'], /NUL character \(U\+0000\) in a key/],
      ];
      for (const [document, chunks, loc, msg] of cases) await assert.rejects(stores.write('s', 'docs', document, chunks, 'm'), refused(loc, msg));
      await stillSearchable();
    });

    test('vectors that are NaN, infinite or all zeros: written or searched', async () => {
      for (const [embedding, msg] of [
        [[NaN, 1], /holds NaN at 0/],
        [[1, Infinity], /holds Infinity at 1/],
        [[0, 0], /is all zeros/],
      ] as const) {
        await assert.rejects(stores.write('s', 'docs', 'd', [chunk('a', [1, 1]), chunk('b', [...embedding])], 'm'), refused(['chunks', 1, 'embedding'], msg));
        await assert.rejects(stores.search('s', { collection: 'docs', embedding: [...embedding], k: 3 }), refused(['body', 'embedding'], msg));
      }
      await stillSearchable();
    });

    test('two documents of one id in one write', async () => {
      await assert.rejects(
        stores.writeMany(
          's',
          'docs',
          [
            { document: 'twice', chunks: good('one') },
            { document: 'other', chunks: good('two') },
            { document: 'twice', chunks: good('three') },
          ],
          'm',
        ),
        refused(['body', 'document', 2], /documents 0 and 2 have one id/),
      );
      await stillSearchable();
    });

    if (handshake === 'pgvector')
      test('more dimensions than pgvector keeps (16,000): 422 naming the limit, not a 503', async () => {
        const wide = Array.from({ length: 16_001 }, (_, i) => (i === 0 ? 1 : 0));
        await assert.rejects(stores.write('s', 'wide', 'd', [chunk('a', wide)], 'm'), refused(['chunks', 0, 'embedding'], /at most 16000/));
      });
  });
}

describe('the surfaces: document ids of a run and of a job', () => {
  let app: TestApp;
  let pipeline: string;
  before(async () => {
    app = await startApp();
    const made = await app.post('/v1/pipelines', {
      name: 'writes',
      steps: [
        { type: 'chunk', chunker: 'token', config: { chunk_size: 16 } },
        { type: 'write', store: 'default', config: { collection: 'ids' } },
      ],
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    pipeline = made.body.id;
  });
  after(() => app?.close());

  test('a run: a list of ids that is not one per text, a repeated id, or one id for several texts is a 422 on document', async () => {
    for (const [body, loc, msg] of [
      [{ text: ['a', 'b', 'c'], document: ['x', 'y'] }, ['body', 'document'], /lists 2 ids for 3 texts/],
      [{ text: ['a', 'b'], document: ['x', 'x'] }, ['body', 'document', 1], /document 1 has the id of document 0/],
      [{ text: ['a', 'b'], document: 'x' }, ['body', 'document'], /one id for 2 texts/],
    ] as const) {
      const r = await app.post(`/v1/pipelines/${pipeline}/execute`, body);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.deepEqual(r.body.detail[0].loc, loc);
      assert.match(r.body.detail[0].msg, msg);
    }
    const listed = (await app.request('GET', '/v1/stores')).body[0].collections;
    assert.ok(!listed.some((c: { name: string }) => c.name === 'ids'), 'nothing was written');
  });

  test('a job that writes: a repeated id (or an id equal to another document’s index) is a 422 at submit; a job that does not write keeps them', async () => {
    for (const [documents, index, first] of [
      [
        [
          { id: 'a', text: 'one' },
          { id: 'b', text: 'two' },
          { id: 'a', text: 'three' },
        ],
        2,
        0,
      ],
      [[{ text: 'one' }, { id: '0', text: 'two' }], 1, 0],
    ] as const) {
      const r = await app.post('/v1/jobs', { pipeline_id: pipeline, documents });
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.deepEqual(r.body.detail[0].loc, ['body', 'documents', index, 'id']);
      assert.match(r.body.detail[0].msg, new RegExp(`documents ${first} and ${index} have one id`));
    }
    const chunkOnly = await app.post('/v1/jobs', {
      steps: [{ type: 'chunk', chunker: 'token', config: { chunk_size: 16 } }],
      documents: [
        { id: 'a', text: 'one' },
        { id: 'a', text: 'two' },
      ],
    });
    assert.equal(chunkOnly.status, 202, JSON.stringify(chunkOnly.body));
  });
});
