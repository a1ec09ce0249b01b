/** LanceDB specifics, on the real engine in a temp directory (the shared contract: test/handshake-conformance.test.ts). */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect } from '@lancedb/lancedb';
import { discover } from '../../kernel/discovery.js';
import { storeChunkId, type HandshakeImpl, type StoreRow } from '../../kernel/handshake.js';
import '../../test/helpers/host.js';
import manifest from './index.js';
import { documentIs } from './sql.js';

const registry = await discover();
const plugin = registry.get('handshake', 'lancedb');
const META = { model: 'm', dimension: 2 };

function row(document: string, text: string, embedding: number[]): StoreRow {
  const chunk = { text, start_index: 0, end_index: text.length };
  return { id: storeChunkId(document, chunk), document, ...chunk, token_count: 1, metadata: {}, embedding };
}

describe('lancedb', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-lancedb-'));
  let store: HandshakeImpl;
  before(async () => (store = await plugin.connect({ path: join(dir, 'db') })));
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('the directory is created on first write, not before', async () => {
    assert.deepEqual(await store.collections(), []);
    await store.write('docs', 'a', [row('a', 'alpha', [1, 0])], META);
    assert.ok(existsSync(join(dir, 'db')));
  });

  test('text search finds rows written after the full-text index was made', async () => {
    await store.write('fts', 'first', [row('first', 'the first hippo', [1, 0])], META);
    await store.write('fts', 'later', [row('later', 'a zebra wrote later', [0, 1])], META);
    const hits = await store.search('fts', { text: 'zebra', k: 5 });
    assert.deepEqual(hits.map((h) => h.document), ['later']);
  });

  test("document ids with quotes and SQL are only ever values: replaced and deleted exactly", async () => {
    const tricky = ["it's", "x' OR '1'='1", 'back\\slash', '日本 🦛'];
    for (const id of tricky) await store.write('quotes', id, [row(id, `text of ${id}`, [1, 1])], META);
    for (const id of tricky) await store.write('quotes', id, [row(id, `text of ${id}`, [1, 1])], META);
    assert.equal((await store.collections()).find((c) => c.name === 'quotes')?.count, tricky.length);
    assert.equal(await store.delete('quotes', "x' OR '1'='1"), 1);
    const left = await store.search('quotes', { embedding: [1, 1], k: 10 });
    assert.deepEqual(left.map((h) => h.document).sort(), tricky.filter((t) => t !== "x' OR '1'='1").sort());
    const one = await store.search('quotes', { embedding: [1, 1], k: 10, filter: { document: "it's" } });
    assert.deepEqual(one.map((h) => h.document), ["it's"]);
    assert.equal(documentIs("it's"), "document = 'it''s'");
  });

  test('writing a document with no rows removes its rows', async () => {
    await store.write('empty', 'a', [row('a', 'alpha', [1, 0]), row('a', 'beta', [0, 1])], META);
    await store.write('empty', 'b', [row('b', 'gamma', [1, 0])], META);
    await store.write('empty', 'a', [], META);
    assert.equal((await store.collections()).find((c) => c.name === 'empty')?.count, 1);
  });

  test('cosine score: the same direction scores 1 whatever the length', async () => {
    await store.write('cos', 'a', [row('a', 'long', [10, 0]), row('a', 'other', [0, 3])], META);
    const [best, next] = await store.search('cos', { embedding: [1, 0], k: 2 });
    assert.equal(best!.text, 'long');
    assert.ok(Math.abs(best!.score - 1) < 1e-6, String(best!.score));
    assert.ok(Math.abs(next!.score) < 1e-6, String(next!.score));
  });

  test('a table written by many commits is compacted: fragments stay few, every row and the full-text index stay whole', async () => {
    for (let i = 0; i < 45; i++) await store.write('many', `d${i}`, [row(`d${i}`, `word${i} shared`, [1, i])], META);
    await store.delete('many', 'd0');
    const db = await connect(join(dir, 'db'));
    const table = await db.openTable('many');
    const { fragmentStats, numRows } = await table.stats();
    table.close();
    db.close();
    assert.equal(numRows, 44);
    // 46 commits, two upkeeps (after the 20th and the 40th): one fragment from each compaction's
    // rows plus the six commits since; without upkeep there would be one fragment per commit.
    assert.ok(fragmentStats.numFragments <= 8, `fragments: ${fragmentStats.numFragments}`);
    assert.deepEqual((await store.search('many', { text: 'word44', k: 3 })).map((h) => h.document), ['d44']);
    assert.deepEqual((await store.search('many', { text: 'word7', k: 3 })).map((h) => h.document), ['d7']);
    assert.equal((await store.search('many', { embedding: [1, 1], k: 100 })).length, 44);
  });

  test('concurrent writes to one collection all land', async () => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.write('busy', `d${i}`, [row(`d${i}`, `text ${i}`, [i, 1])], META)));
    assert.equal((await store.collections()).find((c) => c.name === 'busy')?.count, 8);
  });
});

test('a path on this machine is local; an object-store URI is not', () => {
  assert.equal(manifest.local!({ path: '/data/stores/default' }), true);
  assert.equal(manifest.local!({ path: 'relative/dir' }), true);
  assert.equal(manifest.local!({ path: 's3://bucket/stores' }), false);
});

test('without its package: 501 naming the install command', async () => {
  process.env.CHUNKD_HIDE_PACKAGES = '@lancedb/lancedb';
  try {
    await assert.rejects(plugin.connect({ path: '/nonexistent' }), (e: { status: number; message: string }) => e.status === 501 && /npm install @lancedb\/lancedb/.test(e.message));
  } finally {
    delete process.env.CHUNKD_HIDE_PACKAGES;
  }
});

test('a bad connection config is a 422 naming the field', async () => {
  await assert.rejects(plugin.connect({ path: '' }, ['stores.json', 0]), (e: { status: number; message: string }) => e.status === 422 && /stores\.json\.0\.path/.test(e.message));
});
