/** A store whose engine does not answer, through the Stores service: the answer and the log never carry its URL or password. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { Stores } from '../service/stores/stores.js';

const registry = await discover();

test('pgvector, a database that does not answer: 503 naming the store, with no URL or password in the answer or the log', async () => {
  const logged: string[] = [];
  const stores = Stores.fromSettings(
    registry,
    { stores: JSON.stringify([{ name: 'pg', handshake: 'pgvector', url: 'env:TEST_PG_URL', pool_size: 1 }]), dataDir: '/nonexistent', databaseUrl: '' },
    { log: (_l, msg, fields) => logged.push(msg + JSON.stringify(fields)) },
    { TEST_PG_URL: 'postgres://chunkd:hunter22secret@127.0.0.1:1/db' },
  );
  await assert.rejects(stores.search('pg', { collection: 'docs', query: 'x', k: 1 }), (e: { status: number; message: string }) => e.status === 503 && /'pg'/.test(e.message) && !/hunter22|127\.0\.0\.1|postgres:/.test(e.message));
  assert.ok(logged.length > 0, 'the failure is logged');
  assert.doesNotMatch(logged.join('\n'), /hunter22secret/);
  const [listed] = await stores.list();
  assert.ok(listed!.error && !/hunter22/.test(JSON.stringify(listed)));
  await stores.close();
});
