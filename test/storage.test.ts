/** The SQLite pipeline store: created on first start, WAL and FULL sync, schema versions and migrations, refusals. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import type { Database } from 'sqlite';
import { MIGRATIONS, type Migration } from '../server/storage/migrations.js';
import { DATABASE_FILE } from '../server/storage/service.js';
import { SqliteStore, StoreOpenError } from '../server/storage/sqlite.js';
import { InvalidCursorError, type PipelineRecord } from '../server/storage/store.js';
import { startApp } from './helpers/app.js';

const tmp = mkdtempSync(join(tmpdir(), 'chunkd-storage-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(tmp, `case-${++n}`, 'nested', DATABASE_FILE);

const record = (name: string): PipelineRecord => {
  const now = new Date().toISOString();
  return { id: `id-${name}`, name, description: null, steps: [{ type: 'chunk', chunker: 'token', config: {} }], created_at: now, updated_at: now };
};
/** A row as chunkd 1 (schema version 1, no size column) wrote it. */
const v1Insert = (store: SqliteStore, r: PipelineRecord) =>
  connection(store).run('INSERT INTO pipelines (id, name, description, steps, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', r.id, r.name, r.description, JSON.stringify(r.steps), r.created_at, r.updated_at);
const STEPS_BYTES = Buffer.byteLength(JSON.stringify(record('x').steps));
/** The size column, oldest first. */
const sizes = async (store: SqliteStore) => ((await connection(store).all('SELECT size FROM pipelines ORDER BY seq')) as { size: number }[]).map((r) => r.size);
const names = async (store: SqliteStore) => (await store.list({ limit: 100 })).pipelines.map((p) => p.name);
/** The store's own connection: journal mode and synchronous are per connection. */
const connection = (store: SqliteStore) => (store as unknown as { db: Database }).db;
const pragma = async (store: SqliteStore, name: string) => Object.values((await connection(store).get(`PRAGMA ${name}`)) as object)[0];

describe('opening', () => {
  test('creates the directory and the database on first start: WAL, synchronous FULL, the latest schema', async () => {
    const file = freshFile();
    const store = await SqliteStore.open(file);
    try {
      assert.ok(existsSync(file));
      assert.equal(await pragma(store, 'journal_mode'), 'wal');
      assert.equal(await pragma(store, 'synchronous'), 2, 'FULL');
      assert.equal(await pragma(store, 'user_version'), MIGRATIONS.at(-1)!.version);
      const index = await connection(store).get(`SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'pipelines' AND sql LIKE '%UNIQUE%'`);
      assert.match(index.sql, /\(name\)/, 'the name is unique in the database itself');
    } finally {
      await store.close();
    }
  });

  test('reopening keeps the pipelines and applies nothing twice; closing checkpoints the WAL away', async () => {
    const file = freshFile();
    const first = await SqliteStore.open(file);
    await first.create(record('kept'));
    await first.close();
    assert.equal(existsSync(`${file}-wal`), false, 'a clean close leaves no WAL behind');
    const second = await SqliteStore.open(file);
    try {
      assert.deepEqual(await names(second), ['kept']);
    } finally {
      await second.close();
      await second.close(); // closing twice is harmless (shutdown may race a failed start)
    }
  });

  test('a later migration upgrades an existing database and keeps its rows', async () => {
    const file = freshFile();
    const v1 = await SqliteStore.open(file, MIGRATIONS.slice(0, 1));
    await v1Insert(v1, record('old'));
    await v1.close();
    const next: Migration = { version: MIGRATIONS.at(-1)!.version + 1, sql: 'ALTER TABLE pipelines ADD COLUMN owner TEXT' };
    const v2 = await SqliteStore.open(file, [...MIGRATIONS, next]);
    try {
      assert.equal(await pragma(v2, 'user_version'), next.version);
      assert.deepEqual(await names(v2), ['old']);
    } finally {
      await v2.close();
    }
  });

  test('migration 2 gives the rows of a version-1 database their stored size, which pages then use', async () => {
    const file = freshFile();
    const v1 = await SqliteStore.open(file, MIGRATIONS.slice(0, 1));
    for (const name of ['a', 'b', 'c']) await v1Insert(v1, { ...record(name), description: 'é'.repeat(3000) });
    await v1.close();
    const store = await SqliteStore.open(file);
    try {
      assert.deepEqual(await sizes(store), [6000 + 1 + STEPS_BYTES, 6000 + 1 + STEPS_BYTES, 6000 + 1 + STEPS_BYTES]);
      assert.deepEqual((await store.list({ limit: 10, maxBytes: 13_000 })).pipelines.map((p) => p.name), ['c', 'b']);
    } finally {
      await store.close();
    }
  });

  test('a failing migration is rolled back whole and stops the start', async () => {
    const file = freshFile();
    await (await SqliteStore.open(file)).close();
    const broken: Migration = { version: MIGRATIONS.at(-1)!.version + 1, sql: 'CREATE TABLE half_done (a); THIS IS NOT SQL' };
    await assert.rejects(SqliteStore.open(file, [...MIGRATIONS, broken]), (e: Error) => e instanceof StoreOpenError && /syntax error/.test(e.message));
    const store = await SqliteStore.open(file);
    try {
      assert.equal(await pragma(store, 'user_version'), MIGRATIONS.at(-1)!.version);
      assert.equal(await connection(store).get(`SELECT name FROM sqlite_master WHERE name = 'half_done'`), undefined);
    } finally {
      await store.close();
    }
  });

  const refusals: [string, () => Promise<unknown>, RegExp][] = [
    [
      'a database from a newer chunkd',
      async () => {
        const file = freshFile();
        await (await SqliteStore.open(file)).close();
        return SqliteStore.open(file, []);
      },
      new RegExp(`schema version ${MIGRATIONS.at(-1)!.version}, newer than this chunkd knows \\(0\\): upgrade chunkd, or point --data-dir elsewhere`),
    ],
    [
      'a data directory that is a file',
      async () => {
        const file = join(tmp, 'a-file');
        writeFileSync(file, '');
        return SqliteStore.open(join(file, DATABASE_FILE));
      },
      /Cannot open the pipelines database .*a-file.*--data-dir \(CHUNKD_DATA_DIR\)/,
    ],
  ];
  for (const [name, open, message] of refusals) {
    test(`refuses ${name} with a message that says what to do`, async () => {
      await assert.rejects(open(), (e: Error) => e instanceof StoreOpenError && message.test(e.message));
    });
  }

  test('chunkd serve with an unusable --data-dir exits 1 and says why', () => {
    const file = join(tmp, 'not-a-dir');
    writeFileSync(file, '');
    const root = fileURLToPath(new URL('..', import.meta.url));
    const res = spawnSync(process.execPath, ['--import', 'tsx', 'server/cli.ts', 'serve', '--port', '0', '--data-dir', file], { cwd: root, encoding: 'utf8' });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /Cannot open the pipelines database .*not-a-dir.*--data-dir/);
  });
});

describe('the store contract', () => {
  test('a name conflict on create and on update is a CONFLICT; unknown ids are undefined/false', async () => {
    const store = await SqliteStore.open(freshFile());
    try {
      await store.create(record('a'));
      const b = await store.create(record('b'));
      await assert.rejects(store.create({ ...record('a'), id: 'other' }), { code: 'CONFLICT' });
      await assert.rejects(store.update(b.id, { name: 'a', updated_at: b.updated_at }), { code: 'CONFLICT' });
      assert.equal(await store.update('nope', { name: 'c', updated_at: b.updated_at }), undefined);
      assert.equal(await store.delete('nope'), false);
      assert.equal(await store.delete(b.id), true);
      assert.deepEqual(await names(store), ['a']);
    } finally {
      await store.close();
    }
  });

  test('the server opens the database in its data directory and closes it on shutdown', async () => {
    const app = await startApp();
    const file = join(app.settings.dataDir, DATABASE_FILE);
    assert.ok(existsSync(file));
    assert.equal((await app.post('/v1/pipelines', { name: 'p', steps: [{ type: 'chunk', chunker: 'token' }] })).status, 201);
    assert.ok(existsSync(`${file}-wal`), 'writes go to the WAL');
    await app.booted.close();
    assert.equal(existsSync(`${file}-wal`), false, 'closed: the WAL was checkpointed and removed');
    await app.close();
  });
});

describe('paging the list', () => {
  /** Every page from the first, following `next`. */
  async function walk(store: SqliteStore, limit: number, between: (page: number) => Promise<void> = async () => {}): Promise<string[][]> {
    const pages: string[][] = [];
    let after: string | undefined;
    do {
      const page = await store.list({ limit, after });
      pages.push(page.pipelines.map((p) => p.name));
      after = page.next ?? undefined;
      await between(pages.length);
    } while (after);
    return pages;
  }

  test('pages of `limit`, newest first; the last page has no next; count() is the total', async () => {
    const store = await SqliteStore.open(freshFile());
    try {
      assert.deepEqual(await store.list({ limit: 3 }), { pipelines: [], next: null });
      assert.equal(await store.count(), 0);
      for (let i = 0; i < 7; i++) await store.create(record(`p${i}`));
      assert.deepEqual(await walk(store, 3), [['p6', 'p5', 'p4'], ['p3', 'p2', 'p1'], ['p0']]);
      assert.deepEqual(await walk(store, 7), [['p6', 'p5', 'p4', 'p3', 'p2', 'p1', 'p0']], 'exactly full: no empty page after it');
      assert.equal(await store.count(), 7);
    } finally {
      await store.close();
    }
  });

  test('a cursor keeps its place while pipelines are created and deleted: none twice, none that stayed is missed', async () => {
    // Model: names p0..pn created in order; while a client pages, random creates and deletes happen.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(fc.oneof(fc.constant('create' as const), fc.nat({ max: 20 })), { maxLength: 15 }),
        async (initial, limit, changes) => {
          const store = await SqliteStore.open(freshFile());
          try {
            let made = 0;
            for (; made < initial; made++) await store.create(record(`p${made}`));
            const deleted = new Set<string>();
            const seen = (await walk(store, limit, async () => {
              const change = changes.shift();
              if (change === 'create') await store.create(record(`p${made++}`));
              else if (change !== undefined && change < made && !deleted.has(`p${change}`)) {
                deleted.add(`p${change}`);
                await store.delete(`id-p${change}`);
              }
            })).flat();
            assert.equal(new Set(seen).size, seen.length, `seen twice: ${seen}`);
            const stayed = Array.from({ length: initial }, (_, i) => `p${i}`).filter((n) => !deleted.has(n));
            for (const n of stayed) assert.ok(seen.includes(n), `${n} existed throughout and was not listed: ${seen}`);
            const order = seen.map((n) => Number(n.slice(1)));
            assert.deepEqual(order, [...order].sort((a, b) => b - a), 'newest first across pages');
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  test('maxBytes ends a page before its stored size passes it, with at least one pipeline on it', async () => {
    const store = await SqliteStore.open(freshFile());
    try {
      // As a database written before the size cap could hold: pipelines of ~10 KB and one of ~50 KB.
      const big = (name: string, kb: number): PipelineRecord => ({ ...record(name), steps: [{ type: 'chunk', chunker: 'token', config: { pad: 'é'.repeat(kb * 512) } }] });
      for (const [name, kb] of [['a', 10], ['b', 10], ['c', 50], ['d', 10], ['e', 10], ['f', 10]] as const) await store.create(big(name, kb));
      const pages: string[][] = [];
      let after: string | undefined;
      do {
        const page = await store.list({ limit: 10, after, maxBytes: 25 * 1024 });
        pages.push(page.pipelines.map((p) => p.name));
        after = page.next ?? undefined;
      } while (after);
      assert.deepEqual(pages, [['f', 'e'], ['d'], ['c'], ['b', 'a']], 'UTF-8 bytes count (é is 2): two of ~10 KB fit 25 KiB, three do not; the 50 KB one comes alone');
      assert.deepEqual((await store.list({ limit: 10 })).pipelines.length, 6, 'no budget: the limit alone');
    } finally {
      await store.close();
    }
  });

  test('the size column follows every create and update (UTF-8 bytes); a page reads sizes from the index alone', async () => {
    const store = await SqliteStore.open(freshFile());
    try {
      const expected = (r: { name: string; description: string | null; steps: unknown }) => Buffer.byteLength(r.name) + Buffer.byteLength(r.description ?? '') + Buffer.byteLength(JSON.stringify(r.steps));
      const a = await store.create({ ...record('ä'), description: '日本語' });
      const b = await store.create(record('b'));
      const steps = [{ type: 'chunk' as const, chunker: 'token', config: { chunk_size: 7, note: '🙂'.repeat(10) } }];
      const patches = [{ name: 'ää' }, { description: null }, { description: 'long '.repeat(50) }, { steps }, { name: 'z', description: 'é', steps: record('x').steps }, {}];
      let current = a;
      for (const patch of patches) {
        current = (await store.update(a.id, { ...patch, updated_at: a.updated_at }))!;
        assert.deepEqual(await sizes(store), [expected(current), expected(b)], JSON.stringify(patch));
      }
      const plan = (await connection(store).all('EXPLAIN QUERY PLAN SELECT seq, size FROM pipelines INDEXED BY pipelines_page WHERE seq < 5 ORDER BY seq DESC LIMIT 3')) as { detail: string }[];
      assert.match(plan.map((p) => p.detail).join('; '), /COVERING INDEX pipelines_page/);
    } finally {
      await store.close();
    }
  });

  test('a cursor the store did not make is an InvalidCursorError', async () => {
    const store = await SqliteStore.open(freshFile());
    try {
      for (let i = 0; i < 3; i++) await store.create(record(`p${i}`));
      const { next } = await store.list({ limit: 1 });
      assert.ok(next);
      const b64 = (s: string) => Buffer.from(s).toString('base64url');
      for (const bad of ['', 'abc', `${next}!`, `${next}==`, `+${next}`, b64('seq:0'), b64('seq:-1'), b64('seq:1e3'), b64('seq:99999999999999999999'), '2']) {
        await assert.rejects(store.list({ limit: 1, after: bad }), InvalidCursorError, JSON.stringify(bad));
      }
    } finally {
      await store.close();
    }
  });
});
