/** chroma specifics, on a real Chroma server the test starts (`chroma run`; the shared contract: test/handshake-conformance.test.ts). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ChromaClient } from 'chromadb';
import { discover } from '../../kernel/discovery.js';
import { storeChunkId, type HandshakeImpl, type StoreRow } from '../../kernel/handshake.js';
import { chromaEngine } from '../../test/helpers/chroma.js';

const registry = await discover();
const plugin = registry.get('handshake', 'chroma');
const META = { model: 'm', dimension: 2 };

function row(document: string, text: string, embedding: number[], start = 0): StoreRow {
  const chunk = { text, start_index: start, end_index: start + text.length };
  return { id: storeChunkId(document, chunk), document, ...chunk, token_count: 1, metadata: { nested: { k: [1, 'two'] } }, embedding };
}

const count = async (store: HandshakeImpl, collection: string) => (await store.collections()).find((c) => c.name === collection)?.count;

describe('chroma', () => {
  let engine: Awaited<ReturnType<typeof chromaEngine>>;
  let store: HandshakeImpl;
  let raw: ChromaClient;
  before(async () => {
    engine = await chromaEngine();
    store = await plugin.connect(engine.config);
    const { hostname, port } = new URL(engine.url);
    raw = new ChromaClient({ host: hostname, port: Number(port), tenant: 'default_tenant', database: 'default_database' });
  });
  after(async () => {
    await store?.close();
    await engine?.stop();
  });

  test('names Chroma refuses (short, ending in - or _) are stored under a suffix, each its own collection, listed by their chunkd names', async () => {
    const names = ['a', 'ab', 'ab-', 'ab_', 'abc'];
    for (const [i, name] of names.entries())
      await store.write(
        name,
        'd',
        Array.from({ length: i + 1 }, (_, j) => row('d', `t${j}`, [1, j], j * 10)),
        META,
      );
    const listed = Object.fromEntries((await store.collections()).map((c) => [c.name, c.count]));
    for (const [i, name] of names.entries()) assert.equal(listed[name], i + 1, name);
    const inChroma = (await raw.listCollections()).map((c) => c.name);
    for (const name of ['a.c', 'ab.c', 'ab-.c', 'ab_.c', 'abc']) assert.ok(inChroma.includes(name), `${name} in ${inChroma.join(', ')}`);
  });

  test('a Chroma collection chunkd did not make is neither listed nor written into', async () => {
    const foreign = await raw.createCollection({ name: 'foreign', embeddingFunction: null });
    await foreign.add({ ids: ['theirs'], embeddings: [[0, 1]], documents: ['not ours'] });
    assert.ok(!(await store.collections()).some((c) => c.name === 'foreign'));
    await assert.rejects(
      store.write('foreign', 'd', [row('d', 'mine', [1, 0])], META),
      (e: { status: number; message: string }) => e.status === 409 && /'foreign' was not made by chunkd/.test(e.message),
    );
    assert.deepEqual(await store.search('foreign', { embedding: [0, 1], k: 5 }), [], 'nor searched');
    assert.equal(await store.delete('foreign', 'd'), 0);
    assert.equal(await foreign.count(), 1, 'its row is untouched');
  });

  test('a document of more rows than one Chroma request takes is written in batches, and replaced in full', async () => {
    const max = await raw.getMaxBatchSize();
    const many = Array.from({ length: max + 7 }, (_, i) => row('big', `r${i}`, [1, i % 5], i * 10));
    await store.write('batches', 'big', many, META);
    assert.equal(await count(store, 'batches'), max + 7);
    await store.write('batches', 'big', many.slice(0, 3), META);
    assert.equal(await count(store, 'batches'), 3);
    assert.equal(await store.delete('batches', 'big'), 3);
  });

  test('concurrent writes of one document leave exactly the rows of the last', async () => {
    const first = [row('c', 'one', [1, 0]), row('c', 'two', [0, 1], 3)];
    const second = [row('c', 'three', [1, 1], 6)];
    await Promise.all([store.write('race', 'c', first, META), store.write('race', 'c', second, META)]);
    const hits = await store.search('race', { embedding: [1, 1], k: 10 });
    assert.deepEqual(
      hits.map((h) => h.text),
      ['three'],
    );
  });

  test('score is 1 − cosine distance: the same direction scores 1, the opposite −1', async () => {
    await store.write('scores', 'd', [row('d', 'east', [2, 0]), row('d', 'west', [-1, 0], 4)], META);
    const hits = await store.search('scores', { embedding: [1, 0], k: 2 });
    assert.deepEqual(
      hits.map((h) => h.text),
      ['east', 'west'],
    );
    assert.ok(Math.abs(hits[0]!.score - 1) < 1e-5 && Math.abs(hits[1]!.score + 1) < 1e-5, `${hits.map((h) => h.score)}`);
    assert.deepEqual(hits[0]!.metadata, { nested: { k: [1, 'two'] }, document: 'd' }, 'nested metadata round-trips');
  });

  test('every request goes to the configured URL, with the token as x-chroma-token', async () => {
    const seen: { url: string; token: string | null }[] = [];
    const real = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      // Read, not rebuilt: a Request made from another takes its body.
      const [url, headers] = input instanceof Request ? [input.url, input.headers] : [String(input), new Headers(init?.headers)];
      seen.push({ url, token: headers.get('x-chroma-token') });
      return real(input, init);
    };
    try {
      const withToken = await plugin.connect({ url: engine.url, token: 'tok-3141' });
      await withToken.write('tokened', 'd', [row('d', 'x', [1, 0])], META);
      await withToken.search('tokened', { embedding: [1, 0], k: 1, filter: { document: 'd' } });
      await withToken.collections();
      await withToken.delete('tokened', 'd');
      await withToken.close();
    } finally {
      globalThis.fetch = real;
    }
    assert.ok(seen.length >= 5, `${seen.length} requests`);
    for (const { url, token } of seen) {
      assert.equal(new URL(url).origin, engine.url, url);
      assert.equal(token, 'tok-3141', url);
    }
  });

  test('a database the server does not have: the connection fails and names it', async () => {
    await assert.rejects(plugin.connect({ url: engine.url, database: 'missing_db' }), /no database 'missing_db' in the tenant 'default_tenant'/);
  });
});

test('a URL with a path or credentials is refused, naming url', async () => {
  for (const url of ['http://127.0.0.1:8000/api', 'http://user:pw@127.0.0.1:8000', 'ftp://127.0.0.1']) {
    await assert.rejects(plugin.connect({ url }), (e: { status: number; message: string }) => e.status === 422 && /url/.test(e.message), url);
  }
});
