/** LanceDB specifics, on the real engine in a temp directory (the shared contract: test/handshake-conformance.test.ts). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect, type Table } from '@lancedb/lancedb';
import { discover } from '../../kernel/discovery.js';
import { storeChunkId, type HandshakeImpl, type StoreRow } from '../../kernel/handshake.js';
import '../../test/helpers/host.js';
import { ROOT } from '../../kernel/paths.js';
import type { RefineryImpl } from '../../kernel/index.js';
import { nativeTable, type LanceStoreUpkeep } from './impl.js';
import manifest from './index.js';
import { documentIs } from './sql.js';
import { ipcFileInTurns, rowSchema, toArrowInTurns } from './arrow.js';
import { Bm25Index } from '../../service/evaluation/bm25.js';
import { SCAN_AFTER_ROWS } from './known-documents.js';
import { nprobesFor } from './upkeep.js';

const registry = await discover();
const plugin = registry.get('handshake', 'lancedb');
const META = { model: 'm', dimension: 2 };

/** Arrow as LanceDB loads it (require: the CommonJS build its classes come from). */
const arrowRequire = createRequire(import.meta.url)('apache-arrow') as typeof import('apache-arrow');

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
    assert.deepEqual(
      hits.map((h) => h.document),
      ['later'],
    );
  });

  test("text search ranks as chunkd eval's BM25 for a query of distinct words; words are not stemmed, stop words kept", async () => {
    const texts = ['cats cats cats dogs', 'dogs dogs dogs cats', 'birds sing', 'cats and dogs', 'a dog runs', 'the runner ran'];
    await store.writeMany!(
      'bm25',
      texts.map((t, i) => ({ document: `t${i}`, rows: [row(`t${i}`, t, [1, i])] })),
      META,
    );
    await store.settle!('bm25');
    const bm25 = new Bm25Index(texts);
    for (const q of ['dogs cats', 'cats birds', 'dogs and cats', 'birds']) {
      const hits = await store.search('bm25', { text: q, k: 3 });
      assert.deepEqual(
        hits.map((h) => h.text),
        bm25
          .top(q, 3)
          .filter((i) => bm25.scores(q)[i]! > 0)
          .map((i) => texts[i]),
        q,
      );
    }
    assert.deepEqual(await store.search('bm25', { text: 'run', k: 3 }), [], 'no stemming: "run" is not "runs" or "runner"');
    assert.deepEqual(await store.search('bm25', { text: 'the', k: 3 }).then((h) => h.map((x) => x.text)), ['the runner ran'], 'no stop words');
  });

  /** Ranked by each word once, the first two tie for REPEATED; by BM25 counting the repeated word, the one holding more "dogs" is first. */
  const REPEATING = ['cats cats cats dogs', 'dogs dogs dogs cats', 'birds sing', 'a dog runs', 'the runner ran'];
  const REPEATED = 'dogs dogs cats';

  test("a query that repeats a word: counted each time up to exact_text_rows rows (chunkd eval's BM25), once past them", async () => {
    const texts = REPEATING;
    const bm25 = new Bm25Index(texts);
    const q = REPEATED;
    const counted = bm25.top(q, 2).map((i) => texts[i]);
    assert.deepEqual(counted, ['dogs dogs dogs cats', 'cats cats cats dogs'], 'the reference counts the repeat');
    const top = async (exactTextRows: number) => {
      const path = join(dir, `repeats-${exactTextRows}`);
      const s = (await plugin.connect({ path, exact_text_rows: exactTextRows })) as HandshakeImpl & LanceStoreUpkeep;
      try {
        await s.writeMany!(
          'repeats',
          texts.map((t, i) => ({ document: `t${i}`, rows: [row(`t${i}`, t, [1, i])] })),
          META,
        );
        await s.settle!('repeats');
        return (await s.search('repeats', { text: q, k: 2 })).map((h) => ({ text: h.text, score: h.score }));
      } finally {
        await s.close();
      }
    };
    const exact = await top(texts.length);
    assert.deepEqual(
      exact.map((h) => h.text),
      counted,
    );
    assert.ok(exact[0]!.score > exact[1]!.score, JSON.stringify(exact));
    // Past the rows (here 0): the words as they are, the repeat counted once, so the two rows score alike.
    const once = await top(0);
    assert.equal(once.length, 2);
    assert.ok(Math.abs(once[0]!.score - once[1]!.score) < 1e-6 * once[0]!.score, JSON.stringify(once));
  });

  test('a collection that grows past exact_text_rows: its rows are counted again after the upkeep, and a repeated word then counts once', async () => {
    const texts = REPEATING;
    const s = (await plugin.connect({ path: join(dir, 'grows'), exact_text_rows: texts.length })) as HandshakeImpl & LanceStoreUpkeep;
    const write = async (from: string[], prefix: string) => {
      await s.writeMany!(
        'grows',
        from.map((t, i) => ({ document: `${prefix}${i}`, rows: [row(`${prefix}${i}`, t, [1, i])] })),
        META,
      );
      await s.settle!('grows');
    };
    const scores = async () => (await s.search('grows', { text: REPEATED, k: 2 })).map((h) => h.score);
    try {
      await write(texts, 't');
      const [first, second] = await scores();
      assert.ok(first! > second!, 'at the rows: the repeat counted');
      await write(['birds fly', 'a fish swims'], 'more');
      const [a, b] = await scores();
      assert.ok(Math.abs(a! - b!) < 1e-6 * a!, `past the rows after the upkeep: the repeat counted once (${a}, ${b})`);
    } finally {
      await s.close();
    }
  });

  test('document ids with quotes and SQL are only ever values: replaced and deleted exactly', async () => {
    const tricky = ["it's", "x' OR '1'='1", 'back\\slash', '日本 🦛'];
    for (const id of tricky) await store.write('quotes', id, [row(id, `text of ${id}`, [1, 1])], META);
    for (const id of tricky) await store.write('quotes', id, [row(id, `text of ${id}`, [1, 1])], META);
    assert.equal((await store.collections()).find((c) => c.name === 'quotes')?.count, tricky.length);
    assert.equal(await store.delete('quotes', "x' OR '1'='1"), 1);
    const left = await store.search('quotes', { embedding: [1, 1], k: 10 });
    assert.deepEqual(left.map((h) => h.document).sort(), tricky.filter((t) => t !== "x' OR '1'='1").sort());
    const one = await store.search('quotes', { embedding: [1, 1], k: 10, filter: { document: "it's" } });
    assert.deepEqual(
      one.map((h) => h.document),
      ["it's"],
    );
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

  test('a table written by many commits is compacted once writes settle: fragments few, every row and the full-text index whole', async () => {
    for (let i = 0; i < 45; i++) await store.write('many', `d${i}`, [row(`d${i}`, `word${i} shared`, [1, i])], META);
    await store.delete('many', 'd0');
    // Before upkeep every row is found (scanned, not yet indexed).
    assert.deepEqual(
      (await store.search('many', { text: 'word44', k: 3 })).map((h) => h.document),
      ['d44'],
    );
    await (store as unknown as LanceStoreUpkeep).settled();
    const { fragmentStats, numRows } = await stats('many');
    assert.equal(numRows, 44);
    // 46 commits made 46 fragments; the upkeep after they settled compacted them.
    assert.ok(fragmentStats.numFragments <= 2, `fragments: ${fragmentStats.numFragments}`);
    assert.deepEqual(
      (await store.search('many', { text: 'word44', k: 3 })).map((h) => h.document),
      ['d44'],
    );
    assert.deepEqual(
      (await store.search('many', { text: 'word7', k: 3 })).map((h) => h.document),
      ['d7'],
    );
    assert.equal((await store.search('many', { embedding: [1, 1], k: 100 })).length, 44);
    // The full-text index holds the rows now, rather than a scan finding them.
    assert.equal((await indexStats('many', 'index_text_idx'))?.numUnindexedRows, 0);
  });

  test('a batch that rewrites stored documents replaces their rows; new documents beside them are added once', async () => {
    await store.writeMany!('rewrite', [{ document: 'a', rows: [row('a', 'one', [1, 0]), row('a', 'two', [0, 1])] }], META);
    await store.writeMany!(
      'rewrite',
      [
        { document: 'a', rows: [row('a', 'two', [0, 1]), row('a', 'three', [1, 1])] },
        { document: 'b', rows: [row('b', 'four', [1, 0])] },
      ],
      META,
    );
    await store.writeMany!('rewrite', [{ document: 'b', rows: [row('b', 'four', [1, 0])] }], META);
    const hits = await store.search('rewrite', { embedding: [1, 1], k: 10 });
    assert.deepEqual(hits.map((h) => `${h.document}:${h.text}`).sort(), ['a:three', 'a:two', 'b:four']);
  });

  test('a document of more rows than one commit takes is appended whole, then replaced whole by one merge', async () => {
    // 10,000 rows: three commits of an append (ROWS_PER_TURN rows each), each made between turns of the event loop.
    const rows = (n: number, tag: string) => Array.from({ length: n }, (_, i) => row('big', `${tag} ${i}`, [1 + (i % 7), 1]));
    await store.write('big', 'big', rows(10_000, 'first'), META);
    assert.equal((await store.collections()).find((c) => c.name === 'big')?.count, 10_000);
    const before = await version('big');
    await store.write('big', 'big', rows(9_000, 'second'), META);
    assert.equal((await store.collections()).find((c) => c.name === 'big')?.count, 9_000);
    assert.equal(await version('big'), before + 1, 'the replace is one commit: no reader sees the document half replaced');
    // It went to LanceDB's native merge: without it (another LanceDB version) the handshake falls back to the
    // JavaScript merge, which makes the whole Arrow file in one call on the event loop, and every test here would still pass.
    assert.ok(await onTable('big', async (t) => nativeTable(t) !== undefined), "this LanceDB's Table has the native merge builder the handshake uses");
    const hits = await store.search('big', { embedding: [1, 1], k: 50 });
    assert.ok(hits.length === 50 && hits.every((h) => h.text.startsWith('second ')));
  });

  test("a merge's Arrow file, made a slice per turn, is the file LanceDB would make of the same batches, byte for byte", async () => {
    const rows = Array.from({ length: 2_500 }, (_, i) => row(`d${i % 3}`, `chunk ${i} 東京 😀\r\n${'x'.repeat(i % 50)}`, [i, 1]));
    const schema = rowSchema(2);
    const file = await ipcFileInTurns(schema, rows, 1_000);
    const lance = Buffer.from(await arrowRequire.RecordBatchFileWriter.writeAll(await toArrowInTurns(schema, rows, 1_000)).toUint8Array());
    assert.equal(Buffer.compare(file, lance), 0);
    const back = arrowRequire.tableFromIPC(file);
    assert.equal(back.numRows, 2_500);
    assert.equal(back.batches.length, 3);
    assert.equal(back.getChild('text')!.get(2_499), rows[2_499]!.text);
  });

  test('settle folds the rows appended since the full-text index was made into it at once, without waiting for the quiet time', async () => {
    const patient = await plugin.connect({ path: join(dir, 'db'), settle_ms: 600_000 });
    try {
      await patient.write('settling', 'a', [row('a', 'rivers flood valleys', [1, 0])], META);
      await patient.write('settling', 'b', [row('b', 'keepers trim wicks', [0, 1])], META);
      assert.equal((await indexStats('settling', 'index_text_idx'))?.numUnindexedRows, 1, 'the appended row is not in the index yet');
      await patient.settle!('settling');
      assert.equal((await indexStats('settling', 'index_text_idx'))?.numUnindexedRows, 0);
      assert.deepEqual(
        (await patient.search('settling', { text: 'keepers', k: 2 })).map((h) => h.document),
        ['b'],
      );
    } finally {
      await patient.close();
    }
  });

  describe('past SCAN_AFTER_ROWS unindexed rows, documents are known without asking the table', () => {
    // Documents of 1,000 rows each, SCAN_AFTER_ROWS rows and more, no upkeep between (a long settle_ms).
    const doc = (name: string, tag = name) => ({ document: name, rows: Array.from({ length: 1000 }, (_, i) => row(name, `${tag} ${i}`, [1 + (i % 5), 1])) });
    const bulk = Array.from({ length: SCAN_AFTER_ROWS / 1000 + 2 }, (_, i) => doc(`d${i}`));
    const countOf = (collection: string, document: string) => onTable(collection, (t) => t.countRows(documentIs(document)));

    test('a stored document is replaced, a new one appended, a deleted one written again once', async () => {
      const patient = await plugin.connect({ path: join(dir, 'db'), settle_ms: 600_000 });
      try {
        for (const d of bulk) await patient.writeMany!('known', [d], META);
        await patient.writeMany!('known', [doc('d0', 'again'), doc('new')], META);
        assert.equal(await countOf('known', 'd0'), 1000, 'd0 replaced, not appended beside its rows');
        assert.equal((await patient.search('known', { embedding: [1, 1], k: 5, filter: { document: 'd0' } }))[0]!.text.split(' ')[0], 'again');
        assert.equal(await patient.delete('known', 'd1'), 1000);
        await patient.writeMany!('known', [doc('d1')], META);
        await patient.writeMany!('known', [doc('d1')], META);
        assert.equal(await countOf('known', 'd1'), 1000);
        assert.equal(await onTable('known', (t) => t.countRows()), bulk.length * 1000 + 1000);
      } finally {
        await patient.close();
      }
    });

    test("another writer's document is replaced, not stored twice: its commit ends what this process knew", async () => {
      const [mine, theirs] = await Promise.all([0, 1].map(() => plugin.connect({ path: join(dir, 'db'), settle_ms: 600_000 })));
      try {
        for (const d of bulk) await mine!.writeMany!('shared', [d], META);
        await theirs!.writeMany!('shared', [doc('x', 'theirs')], META);
        await mine!.writeMany!('shared', [doc('x', 'mine')], META);
        assert.equal(await countOf('shared', 'x'), 1000);
        const hit = (await mine!.search('shared', { embedding: [1, 1], k: 1, filter: { document: 'x' } }))[0]!;
        assert.equal(hit.text.split(' ')[0], 'mine');
      } finally {
        await Promise.all([mine!.close(), theirs!.close()]);
      }
    });
  });

  /** A look at a table through a connection of its own, closed after. */
  async function onTable<T>(name: string, look: (table: Table) => Promise<T>): Promise<T> {
    const db = await connect(join(dir, 'db'));
    const table = await db.openTable(name);
    try {
      return await look(table);
    } finally {
      table.close();
      db.close();
    }
  }
  const version = (name: string) => onTable(name, (t) => t.version());
  const stats = (name: string) => onTable(name, (t) => t.stats());
  const indexStats = (name: string, index: string) => onTable(name, (t) => t.indexStats(index));

  test('concurrent writes to one collection all land', async () => {
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.write('busy', `d${i}`, [row(`d${i}`, `text ${i}`, [i, 1])], META)));
    assert.equal((await store.collections()).find((c) => c.name === 'busy')?.count, 8);
  });
});

describe('lancedb past the vector index threshold', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-lancedb-ann-'));
  let store: HandshakeImpl & LanceStoreUpkeep;
  let rows: StoreRow[] = [];
  before(async () => {
    // Real text, embedded by the built-in model: 600 sentences of English prose.
    const sentences = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'nlp-corpus', 'builds', 'doc-1.json'), 'utf8')) as string[])
      .filter((s) => s.split(' ').length >= 6)
      .slice(0, 600);
    const embeddings = registry.get('refinery', 'embeddings');
    const refinery = (await embeddings.instance(embeddings.validateConfig({}))) as RefineryImpl;
    const chunks = await refinery.refine(sentences.map((text, i) => ({ id: `c${i}`, text, start_index: 0, end_index: text.length, token_count: 1 })));
    rows = chunks.map((c, i) => ({ ...row(`doc${Math.floor(i / 20)}`, c.text, c.embedding!), id: `doc${Math.floor(i / 20)}-${i}` }));
    // The threshold is small and upkeep waits for settled() (a long settle_ms), so the test says when the index is built.
    store = (await plugin.connect({ path: join(dir, 'db'), vector_index_rows: 400, settle_ms: 3_600_000 })) as HandshakeImpl & LanceStoreUpkeep;
  });
  after(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const META_100 = { model: 'chunkd/glove-sif-100d', dimension: 100 };
  const top = async (q: StoreRow, filter?: string) =>
    (await store.search('ann', { embedding: Array.from(q.embedding), k: 10, ...(filter ? { filter: { document: filter } } : {}) })).map((h) => h.id);

  test('below the threshold no vector index is built, and search is exact', async () => {
    const docs = (from: number, to: number) =>
      [...new Set(rows.slice(from, to).map((r) => r.document))].map((document) => ({
        document,
        rows: rows.slice(from, to).filter((r) => r.document === document),
      }));
    await store.writeMany!('ann', docs(0, 300), META_100);
    await store.settled();
    assert.equal(await indexes(), 'index_text_idx,document_idx');
    for (const q of rows.slice(0, 300).filter((_, i) => i % 37 === 0)) assert.equal((await top(q))[0], q.id);
    await store.writeMany!('ann', docs(300, 600), META_100);
  });

  test('past the threshold, once writes settle, an IVF-PQ index is built; results are the same before and after', async () => {
    const queries = rows.filter((_, i) => i % 29 === 0);
    const before = await Promise.all(queries.map((q) => top(q)));
    const beforeFiltered = await Promise.all(queries.map((q) => top(q, q.document)));
    assert.equal(await indexes(), 'index_text_idx,document_idx', 'no index before the writes settle');
    await store.settled();
    assert.equal(await indexes(), 'index_text_idx,document_idx,vector_idx');
    const after = await Promise.all(queries.map((q) => top(q)));
    queries.forEach((q, i) => {
      assert.equal(after[i]![0], q.id, 'a stored vector finds its own row first');
      assert.deepEqual(after[i], before[i]);
    });
    // A document filter is answered exactly, index or not.
    assert.deepEqual(await Promise.all(queries.map((q) => top(q, q.document))), beforeFiltered);
    // Rows written after the index was built are found at once, and folded into it at the next upkeep.
    await store.write('ann', 'late', [{ ...rows[5]!, id: 'late-1', document: 'late', embedding: rows[5]!.embedding }], META_100);
    assert.ok((await top(rows[5]!)).includes('late-1'));
    await store.settled();
    assert.ok((await top(rows[5]!)).includes('late-1'));
  });

  async function indexes(): Promise<string> {
    const db = await connect(join(dir, 'db'));
    const table = await db.openTable('ann');
    try {
      return (await table.listIndices())
        .map((i) => i.name)
        .sort((a, b) => ORDER.indexOf(a) - ORDER.indexOf(b))
        .join(',');
    } finally {
      table.close();
      db.close();
    }
  }
  const ORDER = ['index_text_idx', 'document_idx', 'vector_idx'];
});

describe('a store whose directory does not exist yet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-lancedb-unmade-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('is listed empty without loading the engine or making the directory; warming it loads the engine', () => {
    // A process of its own: this one has loaded LanceDB already. Its native module is a shared object once loaded.
    const script = `
      await import(${JSON.stringify(new URL('../../test/helpers/host.js', import.meta.url).href)});
      const { discover } = await import(${JSON.stringify(new URL('../../kernel/discovery.js', import.meta.url).href)});
      const store = await (await discover()).get('handshake', 'lancedb').connect({ path: ${JSON.stringify(join(dir, 'db'))} });
      const loaded = () => process.report.getReport().sharedObjects.some((s) => s.includes('lancedb'));
      const listed = await store.collections();
      const before = loaded();
      await store.warm();
      const warmed = loaded();
      await store.write('c', 'd', [{ id: 'x', document: 'd', text: 'a', start_index: 0, end_index: 1, token_count: 1, metadata: {}, embedding: [1, 0] }], { model: 'm', dimension: 2 });
      console.log(JSON.stringify({ listed, before, warmed, names: (await store.collections()).map((c) => c.name) }));
      await store.close();`;
    const res = spawnSync(process.execPath, [...process.execArgv, '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout.trim().split('\n').at(-1)!), { listed: [], before: false, warmed: true, names: ['c'] });
  });

  test('sees what another connection writes there, and searches it', async () => {
    const path = join(dir, 'shared');
    const [idle, writer] = [await plugin.connect({ path }), await plugin.connect({ path })];
    try {
      assert.deepEqual(await idle.collections(), []);
      assert.equal(existsSync(path), false, 'listing made no directory');
      await writer.write('notes', 'n', [row('n', 'river stone', [1, 0])], META);
      assert.deepEqual(
        (await idle.collections()).map((c) => [c.name, c.count]),
        [['notes', 1]],
      );
      assert.deepEqual(
        (await idle.search('notes', { embedding: [1, 0], k: 1 })).map((h) => h.text),
        ['river stone'],
      );
    } finally {
      await Promise.all([idle.close(), writer.close()]);
    }
  });
});

test('a path on this machine is local; an object-store URI is not', () => {
  const config = (path: string) => ({ path, vector_index_rows: 50_000, exact_text_rows: 10_000, settle_ms: 2000 });
  assert.equal(manifest.local!(config('/data/stores/default')), true);
  assert.equal(manifest.local!(config('relative/dir')), true);
  assert.equal(manifest.local!(config('s3://bucket/stores')), false);
});

test('without its package: 501 naming the install command', async () => {
  process.env.CHUNKD_HIDE_PACKAGES = '@lancedb/lancedb';
  try {
    await assert.rejects(
      plugin.connect({ path: '/nonexistent' }),
      (e: { status: number; message: string }) => e.status === 501 && /npm install @lancedb\/lancedb/.test(e.message),
    );
  } finally {
    delete process.env.CHUNKD_HIDE_PACKAGES;
  }
});

test('a bad connection config is a 422 naming the field', async () => {
  await assert.rejects(
    plugin.connect({ path: '' }, ['stores.json', 0]),
    (e: { status: number; message: string }) => e.status === 422 && /stores\.json\.0\.path/.test(e.message),
  );
});

test('a search probes 11% of the index partitions (about √rows), at least 40', () => {
  assert.equal(nprobesFor(0), 40);
  assert.equal(nprobesFor(100_000), 40);
  assert.equal(nprobesFor(1_000_000), 110);
  assert.equal(nprobesFor(4_000_000), 220);
});
