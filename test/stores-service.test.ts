/** Handshakes through the Stores service: on a real engine, and with an engine that does not answer (the answer and the log never carry its URL, password or token). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { Stores } from '../service/stores/stores.js';
import { chromaEngine } from './helpers/chroma.js';

const registry = await discover();

test('pgvector, a database that does not answer: 503 naming the store, with no URL or password in the answer or the log', async () => {
  const logged: string[] = [];
  const stores = Stores.fromSettings(
    registry,
    { stores: JSON.stringify([{ name: 'pg', handshake: 'pgvector', url: 'env:TEST_PG_URL', pool_size: 1 }]), dataDir: '/nonexistent', databaseUrl: '' },
    { log: (_l, msg, fields) => logged.push(msg + JSON.stringify(fields)) },
    { TEST_PG_URL: 'postgres://chunkd:hunter22secret@127.0.0.1:1/db' },
  );
  await assert.rejects(
    stores.search('pg', { collection: 'docs', query: 'x', k: 1 }),
    (e: { status: number; message: string }) => e.status === 503 && /'pg'/.test(e.message) && !/hunter22|127\.0\.0\.1|postgres:/.test(e.message),
  );
  assert.ok(logged.length > 0, 'the failure is logged');
  assert.doesNotMatch(logged.join('\n'), /hunter22secret/);
  const [listed] = await stores.list();
  assert.ok(listed!.error && !/hunter22/.test(JSON.stringify(listed)));
  await stores.close();
});

test('chroma, a server that does not answer: 503 naming the store, with no token in the answer or the log', async () => {
  const logged: string[] = [];
  const stores = Stores.fromSettings(
    registry,
    {
      stores: JSON.stringify([{ name: 'ch', handshake: 'chroma', url: 'http://127.0.0.1:1', token: 'env:TEST_CHROMA_TOKEN' }]),
      dataDir: '/nonexistent',
      databaseUrl: '',
    },
    { log: (_l, msg, fields) => logged.push(msg + JSON.stringify(fields)) },
    { TEST_CHROMA_TOKEN: 'sekret-chroma-token' },
  );
  await assert.rejects(
    stores.search('ch', { collection: 'docs', embedding: [1, 0], k: 1 }),
    (e: { status: number; message: string }) => e.status === 503 && /'ch'/.test(e.message) && !/sekret|127\.0\.0\.1/.test(e.message),
  );
  assert.ok(logged.length > 0, 'the failure is logged');
  assert.doesNotMatch(logged.join('\n'), /sekret-chroma-token/);
  const [listed] = await stores.list();
  assert.ok(listed!.error && !/sekret/.test(JSON.stringify(listed)));
  await stores.close();
});

describe('chroma through the Stores service', () => {
  let engine: Awaited<ReturnType<typeof chromaEngine>>;
  before(async () => {
    engine = await chromaEngine();
  });
  after(async () => {
    await engine?.stop();
  });

  test('through the Stores service: listed with count, model and dimension; searched; another model is a 409 naming both; deleted', async () => {
    const stores = Stores.fromSettings(registry, {
      stores: JSON.stringify([{ name: 'ch', handshake: 'chroma', url: engine.url }]),
      dataDir: '/nonexistent',
      databaseUrl: '',
    });
    const text = 'alpha beta';
    const chunks = [
      { id: 'a', text: 'alpha', start_index: 0, end_index: 5, token_count: 1, embedding: [1, 0, 0] },
      { id: 'b', text: 'beta', start_index: 6, end_index: 10, token_count: 1, embedding: [0, 1, 0] },
    ];
    try {
      await stores.write('ch', 'svc', 'doc-1', chunks, 'model-x');
      const [listed] = await stores.list();
      assert.deepEqual(
        listed!.collections.find((c) => c.name === 'svc'),
        { name: 'svc', count: 2, model: 'model-x', dimension: 3, default_mode: 'vector' },
      );
      const hits = await stores.search('ch', { collection: 'svc', embedding: [0, 1, 0.1], k: 1 });
      assert.deepEqual(
        hits.map((h) => [h.text, text.slice(h.start_index, h.end_index), h.metadata.document]),
        [['beta', 'beta', 'doc-1']],
      );
      await assert.rejects(
        stores.write('ch', 'svc', 'doc-2', chunks, 'model-y'),
        (e: { status: number; message: string }) => e.status === 409 && /model-x/.test(e.message) && /model-y/.test(e.message),
      );
      assert.equal(await stores.deleteDocument('ch', 'svc', 'doc-1'), 2);
      assert.deepEqual(await stores.search('ch', { collection: 'svc', embedding: [0, 1, 0], k: 5 }), []);
    } finally {
      await stores.close();
    }
  });
});
