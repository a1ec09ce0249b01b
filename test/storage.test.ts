/**
 * The pipeline stores. One contract suite runs on both back-ends (SQLite, and PostgreSQL from
 * test/helpers/postgres.ts): CRUD, conflicts, ordering, paging, cursors, byte-bounded pages, the
 * size column, a race on one name. Then what is each back-end's own: SQLite's file, WAL and
 * user_version migrations; PostgreSQL's migrations table under an advisory lock and its refusals.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import type { Database } from 'sqlite';
import { MIGRATIONS, type Migration } from '../service/storage/migrations.js';
import { PgPipelineStore, PG_MIGRATIONS } from '../service/storage/postgres.js';
import { asUnavailable, createPool, STATEMENT_TIMEOUT_MS } from '../service/storage/pg-pool.js';
import { createServer, type Socket } from 'node:net';
import { DATABASE_FILE } from '../service/storage/service.js';
import { SqliteStore, StoreOpenError } from '../service/storage/sqlite.js';
import { ChunkdError } from '../kernel/errors.js';
import { InvalidCursorError, type PipelineRecord, type PipelineStore } from '../service/storage/store.js';
import { startApp } from './helpers/app.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';
import { CLI } from './helpers/cli.js';

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
  connection(store).run(
    'INSERT INTO pipelines (id, name, description, steps, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
    r.id,
    r.name,
    r.description,
    JSON.stringify(r.steps),
    r.created_at,
    r.updated_at,
  );
const STEPS_BYTES = Buffer.byteLength(JSON.stringify(record('x').steps));
/** The size column, oldest first. */
const sizes = async (store: SqliteStore) => ((await connection(store).all('SELECT size FROM pipelines ORDER BY seq')) as { size: number }[]).map((r) => r.size);
const names = async (store: PipelineStore) => (await store.list({ limit: 100 })).pipelines.map((p) => p.name);
/** The store's own connection: journal mode and synchronous are per connection. */
const connection = (store: SqliteStore) => (store as unknown as { db: Database }).db;
const pragma = async (store: SqliteStore, name: string) => Object.values((await connection(store).get(`PRAGMA ${name}`)) as object)[0];

describe('SQLite: opening', () => {
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
      assert.deepEqual(
        (await store.list({ limit: 10, maxBytes: 13_000 })).pipelines.map((p) => p.name),
        ['c', 'b'],
      );
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
    const res = spawnSync(process.execPath, [...CLI, 'serve', '--port', '0', '--data-dir', file], { cwd: root, encoding: 'utf8' });
    assert.equal(res.status, 1);
    assert.match(res.stderr, /Cannot open the pipelines database .*not-a-dir.*--data-dir/);
  });
});

/** One back-end as the contract suite sees it. */
interface Backend {
  name: string;
  /** An empty store (the same one emptied, where a fresh database would be slow to make). */
  fresh(): Promise<PipelineStore>;
  /** The size column, oldest first. */
  sizes(store: PipelineStore): Promise<number[]>;
  /** Asserts that a page's sizes come from an index alone. */
  pageReadsIndexOnly?(store: PipelineStore): Promise<void>;
}

const sqlite: Backend = {
  name: 'SQLite',
  fresh: () => SqliteStore.open(freshFile()),
  sizes: (store) => sizes(store as SqliteStore),
  async pageReadsIndexOnly(store) {
    const plan = (await connection(store as SqliteStore).all(
      'EXPLAIN QUERY PLAN SELECT seq, size FROM pipelines INDEXED BY pipelines_page WHERE seq < 5 ORDER BY seq DESC LIMIT 3',
    )) as { detail: string }[];
    assert.match(plan.map((p) => p.detail).join('; '), /COVERING INDEX pipelines_page/);
  },
};

/** One PostgreSQL server for the file; pools end after it. */
let server: TestPostgres;
const pools: pg.Pool[] = [];
before(async () => (server = await startPostgres()));
after(async () => {
  await Promise.all(pools.splice(0).map((p) => p.end()));
  await server?.close();
});
const newPool = async () => {
  const pool = createPool(await server.createDatabase());
  pools.push(pool);
  return pool;
};
let shared: { pool: pg.Pool; store: PgPipelineStore } | undefined;
const postgres: Backend = {
  name: 'PostgreSQL',
  async fresh() {
    if (!shared) {
      const pool = await newPool();
      shared = { pool, store: await PgPipelineStore.open(pool) };
    }
    await shared.pool.query('TRUNCATE pipelines');
    return shared.store;
  },
  sizes: async () => (await shared!.pool.query<{ size: number }>('SELECT size FROM pipelines ORDER BY seq')).rows.map((r) => r.size),
  async pageReadsIndexOnly() {
    await shared!.pool.query('SET enable_seqscan = off'); // a table this small would be scanned whatever the indexes
    try {
      const plan = (await shared!.pool.query<{ 'QUERY PLAN': string }>('EXPLAIN SELECT seq, size FROM pipelines WHERE seq < 5 ORDER BY seq DESC LIMIT 3')).rows
        .map((r) => r['QUERY PLAN'])
        .join('; ');
      assert.match(plan, /Index Only Scan Backward using pipelines_page/);
    } finally {
      await shared!.pool.query('RESET enable_seqscan');
    }
  },
};

for (const backend of [sqlite, postgres]) {
  describe(`the store contract: ${backend.name}`, () => {
    test('create, get, getByName, update, delete; a taken name is a CONFLICT on create and update; unknown ids are undefined/false', async () => {
      const store = await backend.fresh();
      try {
        const a = await store.create({ ...record('a'), description: 'first' });
        assert.deepEqual(a, { ...record('a'), description: 'first', created_at: a.created_at, updated_at: a.updated_at });
        assert.deepEqual(await store.get(a.id), a);
        assert.deepEqual(await store.getByName('a'), a);
        assert.equal(await store.get('a'), undefined, 'a name is not an id');
        const b = await store.create(record('b'));
        await assert.rejects(store.create({ ...record('a'), id: 'other' }), { code: 'CONFLICT', message: /named 'a' already exists/ });
        await assert.rejects(store.update(b.id, { name: 'a', updated_at: b.updated_at }), { code: 'CONFLICT' });
        const later = new Date(Date.now() + 1000).toISOString();
        const updated = await store.update(a.id, { description: null, steps: [{ type: 'chunk', chunker: 'sentence', config: { x: 'é' } }], updated_at: later });
        assert.deepEqual(updated, { ...a, description: null, steps: [{ type: 'chunk', chunker: 'sentence', config: { x: 'é' } }], updated_at: later });
        assert.deepEqual(await store.get(a.id), updated);
        assert.equal(await store.update('nope', { name: 'c', updated_at: b.updated_at }), undefined);
        assert.equal(await store.delete('nope'), false);
        assert.equal(await store.delete(b.id), true);
        assert.equal(await store.get(b.id), undefined);
        assert.deepEqual(await names(store), ['a']);
        await store.ping();
      } finally {
        await store.close();
      }
    });

    test('concurrent creates of one name: exactly one succeeds, every other is a CONFLICT', async () => {
      const store = await backend.fresh();
      try {
        const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => store.create({ ...record('same'), id: `id-${i}` })));
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        for (const r of results.filter((r) => r.status === 'rejected')) assert.equal((r.reason as { code?: string }).code, 'CONFLICT', String(r.reason));
        assert.equal(await store.count(), 1);
      } finally {
        await store.close();
      }
    });

    /** Every page from the first, following `next`. */
    async function walk(store: PipelineStore, limit: number, between: (page: number) => Promise<void> = async () => {}): Promise<string[][]> {
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
      const store = await backend.fresh();
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
            const store = await backend.fresh();
            try {
              let made = 0;
              for (; made < initial; made++) await store.create(record(`p${made}`));
              const deleted = new Set<string>();
              const seen = (
                await walk(store, limit, async () => {
                  const change = changes.shift();
                  if (change === 'create') await store.create(record(`p${made++}`));
                  else if (change !== undefined && change < made && !deleted.has(`p${change}`)) {
                    deleted.add(`p${change}`);
                    await store.delete(`id-p${change}`);
                  }
                })
              ).flat();
              assert.equal(new Set(seen).size, seen.length, `seen twice: ${seen}`);
              const stayed = Array.from({ length: initial }, (_, i) => `p${i}`).filter((n) => !deleted.has(n));
              for (const n of stayed) assert.ok(seen.includes(n), `${n} existed throughout and was not listed: ${seen}`);
              const order = seen.map((n) => Number(n.slice(1)));
              assert.deepEqual(
                order,
                [...order].sort((a, b) => b - a),
                'newest first across pages',
              );
            } finally {
              await store.close();
            }
          },
        ),
        { numRuns: 30 },
      );
    });

    test('maxBytes ends a page before its stored size passes it, with at least one pipeline on it', async () => {
      const store = await backend.fresh();
      try {
        // As a database written before the size cap could hold: pipelines of ~10 KB and one of ~50 KB.
        const big = (name: string, kb: number): PipelineRecord => ({
          ...record(name),
          steps: [{ type: 'chunk', chunker: 'token', config: { pad: 'é'.repeat(kb * 512) } }],
        });
        for (const [name, kb] of [
          ['a', 10],
          ['b', 10],
          ['c', 50],
          ['d', 10],
          ['e', 10],
          ['f', 10],
        ] as const)
          await store.create(big(name, kb));
        const pages: string[][] = [];
        let after: string | undefined;
        do {
          const page = await store.list({ limit: 10, after, maxBytes: 25 * 1024 });
          pages.push(page.pipelines.map((p) => p.name));
          after = page.next ?? undefined;
        } while (after);
        assert.deepEqual(
          pages,
          [['f', 'e'], ['d'], ['c'], ['b', 'a']],
          'UTF-8 bytes count (é is 2): two of ~10 KB fit 25 KiB, three do not; the 50 KB one comes alone',
        );
        assert.deepEqual((await store.list({ limit: 10 })).pipelines.length, 6, 'no budget: the limit alone');
      } finally {
        await store.close();
      }
    });

    test('the size column follows every create and update (UTF-8 bytes); a page reads sizes from the index alone', async () => {
      const store = await backend.fresh();
      try {
        const expected = (r: { name: string; description: string | null; steps: unknown }) =>
          Buffer.byteLength(r.name) + Buffer.byteLength(r.description ?? '') + Buffer.byteLength(JSON.stringify(r.steps));
        const a = await store.create({ ...record('ä'), description: '日本語' });
        const b = await store.create(record('b'));
        const steps = [{ type: 'chunk' as const, chunker: 'token', config: { chunk_size: 7, note: '🙂'.repeat(10) } }];
        const patches = [
          { name: 'ää' },
          { description: null },
          { description: 'long '.repeat(50) },
          { steps },
          { name: 'z', description: 'é', steps: record('x').steps },
          {},
        ];
        let current = a;
        for (const patch of patches) {
          current = (await store.update(a.id, { ...patch, updated_at: a.updated_at }))!;
          assert.deepEqual(await backend.sizes(store), [expected(current), expected(b)], JSON.stringify(patch));
        }
        await backend.pageReadsIndexOnly?.(store);
      } finally {
        await store.close();
      }
    });

    test('a cursor the store did not make is an InvalidCursorError', async () => {
      const store = await backend.fresh();
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
}

describe('SQLite: the server', () => {
  test('the server opens the database in its data directory and closes it on shutdown', async () => {
    const app = await startApp();
    const file = join(app.settings.dataDir, DATABASE_FILE);
    assert.ok(existsSync(file));
    assert.equal((await app.post('/v1/pipelines', { name: 'p', steps: [{ type: 'chunk', chunker: 'token' }] })).status, 201);
    assert.ok(existsSync(`${file}-wal`), 'writes go to the WAL');
    assert.deepEqual((await app.request('GET', '/ready')).body, { status: 'ready' });
    assert.equal(app.booted.deps.services.postgres, undefined, 'no pool without --database-url');
    await app.booted.close();
    assert.equal(existsSync(`${file}-wal`), false, 'closed: the WAL was checkpointed and removed');
    await app.close();
  });
});

describe('PostgreSQL: opening', () => {
  const applied = async (pool: pg.Pool) =>
    (await pool.query<{ component: string; version: number }>('SELECT component, version FROM chunkd_migrations ORDER BY version')).rows.map(
      (r) => `${r.component}:${r.version}`,
    );

  test('N stores opening one new database at once: every one opens, each step is applied once', async () => {
    const pool = await newPool();
    // Separate pools, as separate replicas have.
    const replicas = await Promise.all(
      Array.from({ length: 4 }, async () => createPool((pool as unknown as { options: { connectionString: string } }).options.connectionString)),
    );
    pools.push(...replicas);
    await Promise.all(replicas.map((p) => PgPipelineStore.open(p)));
    assert.deepEqual(
      await applied(pool),
      PG_MIGRATIONS.map((m) => `pipelines:${m.version}`),
    );
    const unique = await pool.query(`SELECT indexdef FROM pg_indexes WHERE tablename = 'pipelines' AND indexdef LIKE '%UNIQUE%(name)%'`);
    assert.equal(unique.rowCount, 1, 'the name is unique in the database itself');
  });

  test('a later migration upgrades the database and keeps its rows; a failing one is rolled back whole', async () => {
    const pool = await newPool();
    const v1 = await PgPipelineStore.open(pool);
    await v1.create(record('old'));
    const next: Migration = { version: PG_MIGRATIONS.at(-1)!.version + 1, sql: 'ALTER TABLE pipelines ADD COLUMN owner TEXT' };
    const v2 = await PgPipelineStore.open(pool, [...PG_MIGRATIONS, next]);
    assert.deepEqual(await names(v2), ['old']);
    assert.deepEqual(
      await applied(pool),
      [...PG_MIGRATIONS, next].map((m) => `pipelines:${m.version}`),
    );
    const broken: Migration = { version: next.version + 1, sql: 'CREATE TABLE half_done (a int); THIS IS NOT SQL' };
    await assert.rejects(PgPipelineStore.open(pool, [...PG_MIGRATIONS, next, broken]), /syntax error/);
    assert.equal((await pool.query(`SELECT to_regclass('half_done') AS t`)).rows[0].t, null);
    assert.equal((await applied(pool)).length, PG_MIGRATIONS.length + 1);
  });

  test('refuses a database from a newer chunkd, saying what to do', async () => {
    const pool = await newPool();
    await PgPipelineStore.open(pool);
    await assert.rejects(
      PgPipelineStore.open(pool, []),
      /schema version 1, newer than this chunkd knows \(0\): upgrade chunkd, or point --database-url at another database/,
    );
  });

  test('the server uses PostgreSQL with --database-url and offers its pool as services.postgres', async () => {
    const url = await server.createDatabase();
    const app = await startApp({ 'database-url': url });
    try {
      const pool = app.booted.deps.services.postgres;
      assert.ok(pool instanceof pg.Pool);
      assert.ok(app.booted.deps.services.pipelines instanceof PgPipelineStore);
      assert.equal((await app.post('/v1/pipelines', { name: 'in-pg', steps: [{ type: 'chunk', chunker: 'token' }] })).status, 201);
      assert.deepEqual((await pool.query('SELECT name FROM pipelines')).rows, [{ name: 'in-pg' }]);
      assert.deepEqual(
        (await pool.query('SHOW statement_timeout')).rows,
        [{ statement_timeout: `${STATEMENT_TIMEOUT_MS / 1000}s` }],
        'every connection has the statement timeout',
      );
      assert.deepEqual((await app.request('GET', '/ready')).body, { status: 'ready' });
      assert.equal(existsSync(join(app.settings.dataDir, DATABASE_FILE)), false, 'no SQLite file');
    } finally {
      await app.close();
    }
  });
  // An unreachable --database-url at start-up: the replica waits for it (test/startup.test.ts).
});

describe('PostgreSQL: never a hang', () => {
  test('a server that accepts connections and never answers: a 503 that says so once the connect timeout passes', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const pool = createPool(`postgres://u:hidden-pw@127.0.0.1:${(silent.address() as { port: number }).port}/db`);
    try {
      await assert.rejects(
        pool.query('SELECT 1').catch((e) => Promise.reject(asUnavailable(e))),
        (e: Error & { code?: string; detail?: string }) => {
          assert.equal(e.code, 'UNAVAILABLE');
          assert.match(e.detail!, /^The pipelines database is unreachable \(connection timed out\): retry in a moment/);
          assert.doesNotMatch(e.detail!, /hidden-pw|127\.0\.0\.1/);
          return true;
        },
      );
    } finally {
      await pool.end();
      sockets.forEach((s) => s.destroy());
      silent.close();
    }
  });

  test('a statement past its timeout is a 503 that says so', async () => {
    const pool = await newPool();
    const client = await pool.connect();
    try {
      await client.query('SET statement_timeout = 50');
      const e = await client.query('SELECT pg_sleep(5)').then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.match((asUnavailable(e) as ChunkdError).detail as string, /unreachable \(a statement timed out\)/);
    } finally {
      client.release(true);
    }
  });
});
