/** pgvector specifics, on a real PostgreSQL engine with the extension (PGlite over the wire protocol; the shared contract: test/handshake-conformance.test.ts). */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { discover } from '../../kernel/discovery.js';
import { storeChunkId, type HandshakeImpl, type StoreRow } from '../../kernel/handshake.js';
import { pgliteEngine } from '../../test/helpers/pglite.js';

const registry = await discover();
const plugin = registry.get('handshake', 'pgvector');
const META = { model: 'm', dimension: 2 };

function row(document: string, text: string, embedding: number[]): StoreRow {
  const chunk = { text, start_index: 0, end_index: text.length };
  return { id: storeChunkId(document, chunk), document, ...chunk, token_count: 1, metadata: { k: "it's" }, embedding };
}

describe('pgvector', () => {
  let engine: Awaited<ReturnType<typeof pgliteEngine>>;
  let store: HandshakeImpl;
  before(async () => {
    engine = await pgliteEngine();
    store = await plugin.connect(engine.config);
  });
  after(async () => {
    await store?.close();
    await engine?.stop();
  });

  test('collection names are quoted identifiers: case and - kept, each its own table', async () => {
    await store.write('Docs-1', 'a', [row('a', 'upper', [1, 0])], META);
    await store.write('docs-1', 'a', [row('a', 'lower', [1, 0]), row('a', 'more', [0, 1])], META);
    const counts = Object.fromEntries((await store.collections()).map((c) => [c.name, c.count]));
    assert.equal(counts['Docs-1'], 1);
    assert.equal(counts['docs-1'], 2);
  });

  test('document ids and metadata are parameters, never SQL', async () => {
    const id = 'x\'); DROP TABLE "chunkd_Docs-1"; --';
    await store.write('quotes', id, [row(id, 'text', [1, 1])], META);
    assert.equal(await store.delete('quotes', id), 1);
    assert.ok(
      (await store.collections()).some((c) => c.name === 'Docs-1'),
      'the other table is still there',
    );
  });

  test('one document of 200 chunks of 128 dimensions is written in one statement, then found', async () => {
    // Its Bind message (~500 KB) spans many TCP reads: the engine must see it whole.
    const dimension = 128;
    const rows = Array.from({ length: 200 }, (_, i) =>
      row(
        'big',
        `chunk ${i}`,
        Array.from({ length: dimension }, (_, d) => (d === i % dimension ? 1 : 0.001 * ((i * 31 + d) % 97))),
      ),
    );
    await store.write('big', 'big', rows, { model: 'm', dimension });
    assert.equal((await store.collections()).find((c) => c.name === 'big')?.count, 200);
    const hits = await store.search('big', { embedding: Array.from(rows[5]!.embedding), k: 3 });
    assert.equal(hits[0]!.text, 'chunk 5');
  });

  test('a document of more rows than one statement takes is written whole, then replaced whole, in one transaction', async () => {
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => row('long', `${tag} ${i}`, [1 + (i % 7), 1]));
    await store.write('long', 'long', rows(4500, 'first'), META);
    assert.equal((await store.collections()).find((c) => c.name === 'long')?.count, 4500);
    await store.write('long', 'long', rows(2100, 'second'), META);
    const after = await store.search('long', { embedding: [1, 1], k: 3000, filter: { document: 'long' } });
    assert.equal(after.length, 2100);
    assert.ok(after.every((h) => h.text.startsWith('second ')));
    // A statement that fails half way rolls the whole write back: the document stays as it was.
    const bad = rows(4500, 'third');
    bad[4400] = { ...bad[4400]!, embedding: [1, 2, 3] };
    await assert.rejects(store.write('long', 'long', bad, META));
    const kept = await store.search('long', { embedding: [1, 1], k: 3000, filter: { document: 'long' } });
    assert.equal(kept.length, 2100);
    assert.ok(kept.every((h) => h.text.startsWith('second ')));
  });

  test('text search ranks the chunk holding the words first', async () => {
    await store.write('fts', 'a', [row('a', 'the river runs', [1, 0]), row('a', 'a quiet hippo', [0, 1])], META);
    const hits = await store.search('fts', { text: 'hippo', k: 5 });
    assert.deepEqual(
      hits.map((h) => h.text),
      ['a quiet hippo'],
    );
    assert.ok(hits[0]!.score > 0);
  });

  test('text search ranks by BM25: a rare word outweighs a common one held many times, with or without the table statistics', async () => {
    const texts = [
      ...Array.from({ length: 10 }, (_, i) => `the river ${i} runs by the bank`),
      'the the the the the the the the long song',
      'a hippo swims',
      'the hippo and the river',
    ];
    await store.write(
      'bm25',
      'd',
      texts.map((t) => row('d', t, [1, 1])),
      META,
    );
    const ranked = async () => (await store.search('bm25', { text: 'the hippo', k: 3 })).map((h) => h.text);
    // ts_rank alone (no inverse document frequency) put the chunk of eight "the" above both hippo chunks.
    assert.deepEqual((await ranked()).slice(0, 2).sort(), ['a hippo swims', 'the hippo and the river']);
    // After ANALYZE a common word's frequency comes from the column's statistics, not from a count.
    const client = new pg.Client({ connectionString: engine.url });
    await client.connect();
    try {
      await client.query('ANALYZE "chunkd_bm25"');
      assert.ok((await client.query(`SELECT 1 FROM pg_stats WHERE tablename = 'chunkd_bm25' AND attname = 'tsv' AND most_common_elems IS NOT NULL`)).rowCount);
    } finally {
      await client.end();
    }
    assert.deepEqual((await ranked()).slice(0, 2).sort(), ['a hippo swims', 'the hippo and the river']);
    // A filter searches its own rows by every word of the query, however common.
    await store.write('bm25', 'other', [row('other', 'the end', [1, 1])], META);
    const filtered = await store.search('bm25', { text: 'the hippo', k: 3, filter: { document: 'other' } });
    assert.deepEqual(
      filtered.map((h) => h.text),
      ['the end'],
    );
  });
});

test('a bad table prefix is refused before any SQL is made of it', async () => {
  await assert.rejects(
    plugin.connect({ url: 'postgres://127.0.0.1:1/x', table_prefix: 'x"; drop' }),
    (e: { status: number; message: string }) => e.status === 422 && /table_prefix/.test(e.message),
  );
});

describe('pgvector table names', () => {
  let engine: Awaited<ReturnType<typeof pgliteEngine>>;
  let store: HandshakeImpl;
  let db: pg.Client;
  before(async () => {
    engine = await pgliteEngine();
    store = await plugin.connect(engine.config);
  });
  after(async () => {
    await store?.close();
    await engine?.stop();
  });
  /** One client at a time on PGlite: the store's pool is idle between its calls, so a client is opened per question and closed. */
  async function ask<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
    await store.close();
    db = new pg.Client({ connectionString: engine.url });
    await db.connect();
    try {
      return (await db.query<T>(sql, params)).rows;
    } finally {
      await db.end();
      store = await plugin.connect(engine.config);
    }
  }

  test('a name past 63 bytes with its prefix gets a table of 63 bytes ending in a hash, with its own indexes', async () => {
    const name = `${'a'.repeat(60)}-1`;
    await store.write(name, 'd', [row('d', 'one', [1, 0])], META);
    const [meta] = await ask<{ table_name: string }>('SELECT table_name FROM chunkd__meta WHERE name = $1', [name]);
    assert.equal(Buffer.byteLength(meta!.table_name), 63);
    assert.match(meta!.table_name, /^chunkd_a+\.[0-9a-f]{16}$/);
    const indexes = await ask<{ indexname: string }>('SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname', [meta!.table_name]);
    assert.equal(indexes.filter((i) => /\.(document|tsv|embedding)$/.test(i.indexname)).length, 3, JSON.stringify(indexes));
  });

  test('a table another collection is recorded in is refused (409), never shared', async () => {
    await store.write('first', 'd', [row('d', 'one', [1, 0])], META);
    // As if a hash were shared: the meta row of another name already names the table 'second' would be kept in.
    await ask("INSERT INTO chunkd__meta (name, table_name, model, dimension) VALUES ('zz-other', 'chunkd_second', 'm', 2)");
    await assert.rejects(store.write('second', 'd', [row('d', 'two', [0, 1])], META), (e: { status: number; message: string }) => {
      return e.status === 409 && /zz-other/.test(e.message);
    });
    assert.equal(await store.delete('first', 'd'), 1);
  });

  test("a name an earlier version's index holds is refused (409), not written into the index's table", async () => {
    await store.write('old', 'd', [row('d', 'one', [1, 0])], META);
    await ask('CREATE INDEX "chunkd_old_document" ON "chunkd_old" (document)');
    await assert.rejects(store.write('old_document', 'd', [row('d', 'two', [0, 1])], META), (e: { status: number }) => e.status === 409);
    assert.equal((await store.collections()).find((c) => c.name === 'old')?.count, 1);
  });
});

/** The start-up message the plugin's first connection sends to `url`, its `PORT` replaced by a listener's here. */
async function startupMessage(url: string): Promise<string> {
  // PGlite takes no start-up parameters, so the start-up message is read here; a real PostgreSQL applies
  // it to the connection (SHOW hnsw.ef_search answers it, before the extension is loaded too).
  let startup!: (b: Buffer) => void;
  const first = new Promise<Buffer>((resolve) => (startup = resolve));
  const server = createServer((socket) => socket.once('data', (b) => (startup(b), socket.destroy())));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const port = (server.address() as AddressInfo).port;
    const store = await plugin.connect({ url: url.replace('PORT', String(port)), ef_search: 7, connect_timeout_ms: 2000 });
    await assert.rejects(store.collections());
    await store.close();
    return (await first).toString('latin1');
  } finally {
    server.close();
  }
}

test('each connection starts with hnsw.ef_search set: a parameter of its start, never a query beside its first', async () => {
  assert.match(await startupMessage('postgres://u:p@127.0.0.1:PORT/db'), /\0options\0-c hnsw\.ef_search=7\0/);
});

test("a URL's own options keep ef_search: node-postgres would let them replace the plugin's", async () => {
  const message = await startupMessage('postgres://u:p@127.0.0.1:PORT/db?options=-c%20statement_timeout%3D5000&application_name=mine');
  assert.match(message, /\0options\0-c hnsw\.ef_search=7 -c statement_timeout=5000\0/);
  assert.match(message, /\0application_name\0mine\0/, "the URL's other parameters stay");
  // A URL with no host before its path (the form a socket directory takes), the host given as a parameter.
  const hostless = await startupMessage('postgres://u:p@/db?host=127.0.0.1&port=PORT&options=-c%20statement_timeout%3D5000');
  assert.match(hostless, /\0options\0-c hnsw\.ef_search=7 -c statement_timeout=5000\0/);
});

test("a new collection's HNSW index is built with hnsw_m and hnsw_ef_construction; ef_construction under twice m is refused at connect", async () => {
  const engine = await pgliteEngine();
  try {
    const store = await plugin.connect({ ...engine.config, table_prefix: 'built_', hnsw_m: 8, hnsw_ef_construction: 40 });
    await store.write('c', 'd', [row('d', 'one', [1, 0])], META);
    await store.close();
    const client = new pg.Client({ connectionString: engine.url });
    await client.connect();
    const { rows } = await client.query("SELECT indexdef FROM pg_indexes WHERE indexdef LIKE '%USING hnsw%' AND tablename LIKE 'built_%'");
    await client.end();
    assert.equal(rows.length, 1);
    assert.match(rows[0].indexdef, /m='?8'?, ef_construction='?40'?/);
    await assert.rejects(
      plugin.connect({ ...engine.config, hnsw_m: 32, hnsw_ef_construction: 60 }),
      /hnsw_ef_construction \(60\) must be at least twice hnsw_m \(32\)/,
    );
  } finally {
    await engine.stop();
  }
});
