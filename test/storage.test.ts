/** The SQLite pipeline store: created on first start, WAL and FULL sync, schema versions and migrations, refusals. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Database } from 'sqlite';
import { MIGRATIONS, type Migration } from '../server/storage/migrations.js';
import { DATABASE_FILE } from '../server/storage/service.js';
import { SqliteStore, StoreOpenError } from '../server/storage/sqlite.js';
import type { PipelineRecord } from '../server/storage/store.js';
import { startApp } from './helpers/app.js';

const tmp = mkdtempSync(join(tmpdir(), 'chunkd-storage-'));
after(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshFile = () => join(tmp, `case-${++n}`, 'nested', DATABASE_FILE);

const record = (name: string): PipelineRecord => {
  const now = new Date().toISOString();
  return { id: `id-${name}`, name, description: null, steps: [{ type: 'chunk', chunker: 'token', config: {} }], created_at: now, updated_at: now };
};
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
      assert.deepEqual((await second.list()).map((p) => p.name), ['kept']);
    } finally {
      await second.close();
      await second.close(); // closing twice is harmless (shutdown may race a failed start)
    }
  });

  test('a later migration upgrades an existing database and keeps its rows', async () => {
    const file = freshFile();
    const v1 = await SqliteStore.open(file, MIGRATIONS.slice(0, 1));
    await v1.create(record('old'));
    await v1.close();
    const next: Migration = { version: MIGRATIONS.at(-1)!.version + 1, sql: 'ALTER TABLE pipelines ADD COLUMN owner TEXT' };
    const v2 = await SqliteStore.open(file, [...MIGRATIONS, next]);
    try {
      assert.equal(await pragma(v2, 'user_version'), next.version);
      assert.deepEqual((await v2.list()).map((p) => p.name), ['old']);
    } finally {
      await v2.close();
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
      /schema version 1, newer than this chunkd knows \(0\): upgrade chunkd, or point --data-dir elsewhere/,
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
      assert.deepEqual((await store.list()).map((p) => p.name), ['a']);
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
