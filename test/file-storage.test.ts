/**
 * The file stores. One contract suite runs on both back-ends (the data folder, and PostgreSQL from
 * test/helpers/postgres.ts): reserve → put → read back (record, text, structure, bytes), delete,
 * list pages, the quota (count and bytes, reserved before extraction, given back on failure, never
 * overshot by concurrent uploads), expiry. Then what is PostgreSQL's own: one quota for several
 * stores (replicas) on one database, lapsed reservations, one sweep per interval, migrations.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import { DataDirFileStore } from '../service/files/data-dir.js';
import { FILE_MIGRATIONS, PgFileStore, type PgFileOptions } from '../service/files/postgres.js';
import { encodedText, InvalidFileCursorError, newFileName, QuotaError, type FileQuota, type FileRecord, type FileStore } from '../service/files/store.js';
import { createPool } from '../service/storage/pg-pool.js';
import { startPostgres, type TestPostgres } from './helpers/postgres.js';

const tmp = mkdtempSync(join(tmpdir(), 'chunkd-file-storage-'));
let n = 0;
const BIG: FileQuota = { maxFiles: 1000, maxBytes: 1 << 30 };

let server: TestPostgres;
const pools: pg.Pool[] = [];
const stores: FileStore[] = [];
before(async () => (server = await startPostgres()));
after(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  await Promise.all(pools.splice(0).map((p) => p.end()));
  await server?.close();
  rmSync(tmp, { recursive: true, force: true });
});
const pgStore = async (url: string, quota: FileQuota, options: Partial<PgFileOptions> = {}) => {
  const pool = createPool(url);
  pools.push(pool);
  const store = await PgFileStore.open(pool, quota, { reservationMs: 60_000, ...options });
  stores.push(store);
  return { store, pool };
};

interface Backend {
  name: string;
  fresh(quota?: FileQuota): Promise<FileStore>;
}
const backends: Backend[] = [
  { name: 'data folder', fresh: async (quota = BIG) => DataDirFileStore.open(join(tmp, `case-${++n}`), quota) },
  { name: 'PostgreSQL', fresh: async (quota = BIG) => (await pgStore(await server.createDatabase(), quota)).store },
];

const record = (name = newFileName(), at = Date.now(), expires: number | null = at + 3_600_000): FileRecord => ({
  name,
  filename: 'notes.md',
  size: 0,
  format: 'md',
  text_chars: 0,
  created_at: new Date(at).toISOString(),
  expires_at: expires === null ? null : new Date(expires).toISOString(),
});

/** reserve + put, as an upload does. */
async function store(
  s: FileStore,
  text: string,
  options: { bytes?: Uint8Array; structure?: unknown; at?: number; expires?: number | null } = {},
): Promise<FileRecord> {
  const bytes = options.bytes ?? Buffer.from(text);
  const r = { ...record(newFileName(), options.at, options.expires), size: bytes.length, text_chars: [...text].length };
  const held = await s.reserve(r.name, bytes.length);
  await s.put(held, r, { bytes, text, structure: options.structure });
  return r;
}

for (const backend of backends) {
  describe(`the file store contract: ${backend.name}`, () => {
    test('a stored file reads back whole: record, text (U+0000 and astral characters included), structure as its stored JSON bytes, bytes', async () => {
      const s = await backend.fresh();
      try {
        const text = 'Title\n\nA NUL \u0000 here, 日本語, 🙂 and é.';
        const structure = { headings: [{ level: 1, start: 0, end: 5, text: 'Title' }], tables: [], note: 'é\u0000🙂', nested: { a: [1, 2.5, null, true] } };
        const bytes = new Uint8Array([0, 1, 2, 255, 254, 0x0a]);
        const r = await store(s, text, { bytes, structure });
        assert.deepEqual(await s.get(r.name), r);
        assert.equal(await s.text(r.name), text);
        // The JSON bytes exactly as stored: the store never parses them (the runner does, where the work runs).
        const json = await s.structureJson(r.name);
        assert.ok(json instanceof Uint8Array);
        assert.equal(Buffer.from(json).toString('utf8'), JSON.stringify(structure));
        assert.deepEqual(JSON.parse(Buffer.from(json).toString('utf8')), structure);
        assert.deepEqual(new Uint8Array((await s.original(r.name))!), bytes);
        const plain = await store(s, 'no structure');
        assert.equal(await s.structureJson(plain.name), null, 'stored without a structure: null');
        await s.ping();
      } finally {
        await s.close();
      }
    });

    test('a structure given as its JSON bytes is stored as they are and counted in the quota', async () => {
      const s = await backend.fresh();
      try {
        const json = new TextEncoder().encode(JSON.stringify({ headings: [{ level: 1, start: 0, end: 3, text: 'é 🙂' }], tables: [] }));
        const r = { ...record(), size: 3, text_chars: 3 };
        await s.put(await s.reserve(r.name, 3), r, { bytes: Buffer.from('abc'), text: 'abc', structureJson: json });
        assert.deepEqual(new Uint8Array((await s.structureJson(r.name))!), json);
        assert.deepEqual(await s.usage(), { count: 1, bytes: 3 + 3 + json.byteLength });
      } finally {
        await s.close();
      }
    });

    test('a text given with its UTF-8 bytes is stored from those bytes, never encoded again; without them it is encoded (counted)', async () => {
      const s = await backend.fresh();
      try {
        const text = 'Grüße, 日本語 and 🙂.\n'.repeat(1000);
        // A BOM, then the text, in shared memory as an upload is read.
        const plain = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
        const file = Buffer.from(new SharedArrayBuffer(plain.length));
        plain.copy(file);
        const r = { ...record(), size: file.length, text_chars: [...text].length };
        const held = await s.reserve(r.name, file.length);
        const before = { ...encodedText };
        await s.put(held, r, { bytes: file, text, textUtf8: file.subarray(3) });
        assert.deepEqual(encodedText, before, 'no text bytes encoded');
        assert.equal(await s.text(r.name), text);
        assert.deepEqual(Buffer.from((await s.original(r.name))!), plain);
        assert.deepEqual(await s.usage(), { count: 1, bytes: file.length + file.length - 3 });
        await store(s, 'encoded here');
        assert.deepEqual(encodedText, { files: before.files + 1, bytes: before.bytes + 'encoded here'.length });
      } finally {
        await s.close();
      }
    });

    test('unknown, deleted and non-file names read as absent; delete answers whether it deleted', async () => {
      const s = await backend.fresh();
      try {
        const r = await store(s, 'short-lived');
        for (const name of [newFileName(), '../../etc/passwd', r.name.toUpperCase(), '']) {
          assert.equal(await s.get(name), undefined, name);
          assert.equal(await s.text(name), undefined, name);
          assert.equal(await s.structureJson(name), undefined, name);
          assert.equal(await s.original(name), undefined, name);
          assert.equal(await s.delete(name), false, name);
        }
        assert.equal(await s.delete(r.name), true);
        assert.equal(await s.get(r.name), undefined);
        assert.equal(await s.text(r.name), undefined);
        assert.equal(await s.original(r.name), undefined);
        assert.equal(await s.delete(r.name), false);
        assert.deepEqual(await s.usage(), { count: 0, bytes: 0 });
      } finally {
        await s.close();
      }
    });

    test('usage counts bytes and text bytes (UTF-8); a reservation counts from reserve until put or release', async () => {
      const s = await backend.fresh();
      try {
        await store(s, 'é', { bytes: Buffer.from('abc') }); // 3 + 2
        assert.deepEqual(await s.usage(), { count: 1, bytes: 5 });
        const held = await s.reserve(newFileName(), 100);
        assert.deepEqual(await s.usage(), { count: 2, bytes: 105 }, 'the reservation is counted');
        await s.release(held);
        await s.release(held); // idempotent
        assert.deepEqual(await s.usage(), { count: 1, bytes: 5 });
        assert.equal(await s.get(held.name), undefined, 'a reservation is not a file');
        assert.deepEqual((await s.list({ limit: 10 })).files.length, 1);
      } finally {
        await s.close();
      }
    });

    test('a structure is paid for: its JSON bytes count in usage, and a structure past the byte quota is a QuotaError', async () => {
      const s = await backend.fresh({ maxFiles: 10, maxBytes: 2_000 });
      try {
        const structure = {
          headings: Array.from({ length: 10 }, (_, i) => ({ level: 1, text: '', start: i, end: i })),
          tables: [],
          code: [],
          images: [],
          pages: [],
        };
        await store(s, 'é', { bytes: Buffer.from('abc'), structure }); // 3 + 2 + the JSON
        assert.deepEqual(await s.usage(), { count: 1, bytes: 5 + Buffer.byteLength(JSON.stringify(structure)) });
        // The same file with ten times the headings would pass 2,000 bytes: refused, and its room given back.
        const many = { ...structure, headings: Array.from({ length: 100 }, (_, i) => ({ level: 1, text: '', start: i, end: i })) };
        const held = await s.reserve(newFileName(), 5);
        await assert.rejects(
          s.put(held, record(held.name), { bytes: Buffer.from('abc'), text: 'é', structure: many }),
          (e: unknown) => e instanceof QuotaError && e.limit === 'bytes',
        );
        assert.deepEqual(await s.usage(), { count: 1, bytes: 5 + Buffer.byteLength(JSON.stringify(structure)) });
      } finally {
        await s.close();
      }
    });

    test('the count quota: reserve refuses one file too many with QuotaError(count); release gives the room back', async () => {
      const s = await backend.fresh({ maxFiles: 2, maxBytes: 1000 });
      try {
        await store(s, 'one');
        const second = await s.reserve(newFileName(), 1);
        await assert.rejects(s.reserve(newFileName(), 1), (e: unknown) => e instanceof QuotaError && e.limit === 'count');
        await s.release(second);
        await s.reserve(newFileName(), 1);
      } finally {
        await s.close();
      }
    });

    test('the bytes quota: reserve refuses at once; put refuses a text that does not fit and releases the reservation', async () => {
      const s = await backend.fresh({ maxFiles: 10, maxBytes: 100 });
      try {
        await assert.rejects(s.reserve(newFileName(), 101), (e: unknown) => e instanceof QuotaError && e.limit === 'bytes');
        const r = record();
        const held = await s.reserve(r.name, 60); // the upload fits...
        await assert.rejects(
          s.put(held, r, { bytes: new Uint8Array(60), text: 'x'.repeat(41) }),
          (e: unknown) => e instanceof QuotaError && e.limit === 'bytes',
        ); // ...its text does not
        assert.deepEqual(await s.usage(), { count: 0, bytes: 0 }, 'the refused put gave its reservation back');
        assert.equal(await s.get(r.name), undefined);
        const fits = record();
        await s.put(await s.reserve(fits.name, 60), fits, { bytes: new Uint8Array(60), text: 'x'.repeat(40) });
        assert.deepEqual(await s.usage(), { count: 1, bytes: 100 });
      } finally {
        await s.close();
      }
    });

    test('concurrent reservations never overshoot the quota: exactly maxFiles succeed', async () => {
      const s = await backend.fresh({ maxFiles: 5, maxBytes: 1 << 20 });
      try {
        const results = await Promise.allSettled(Array.from({ length: 30 }, () => s.reserve(newFileName(), 10)));
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
        for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof QuotaError, String(r.reason));
        assert.deepEqual(await s.usage(), { count: 5, bytes: 50 });
      } finally {
        await s.close();
      }
    });

    test('an expired file is gone for every method before any sweep; the sweep removes it and its usage', async () => {
      const s = await backend.fresh();
      try {
        const live = await store(s, 'stays', { expires: null });
        const gone = await store(s, 'expired', { at: Date.now() - 10_000, expires: Date.now() - 5_000 });
        assert.equal(await s.get(gone.name), undefined);
        assert.equal(await s.text(gone.name), undefined);
        assert.equal(await s.structureJson(gone.name), undefined);
        assert.equal(await s.original(gone.name), undefined);
        assert.equal(await s.delete(gone.name), false);
        assert.deepEqual(
          (await s.list({ limit: 10 })).files.map((f) => f.name),
          [live.name],
        );
        const unread = await store(s, 'expired, never read', { at: Date.now() - 10_000, expires: Date.now() - 5_000 });
        assert.ok((await s.sweep()) >= 1, 'at least the one no read has seen (a read may remove an expired file on its way)');
        assert.equal(await s.sweep(), 0);
        assert.equal(await s.get(unread.name), undefined);
        assert.deepEqual(await s.usage(), { count: 1, bytes: 10 });
        assert.deepEqual(await s.get(live.name), live);
      } finally {
        await s.close();
      }
    });

    test('list: newest first, pages of `limit` through `next`, none twice across deletes; a foreign cursor is refused', async () => {
      const s = await backend.fresh();
      try {
        const t0 = Date.now() - 100_000;
        const made: FileRecord[] = [];
        for (let i = 0; i < 7; i++) made.push(await store(s, `file ${i}`, { at: t0 + (i < 2 ? 0 : i) * 1000 })); // two share a millisecond
        const newestFirst = [...made].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.name < b.name ? 1 : -1)).map((f) => f.name);
        const seen: string[] = [];
        let after: string | undefined;
        let pages = 0;
        do {
          const page = await s.list({ limit: 3, after });
          seen.push(...page.files.map((f) => f.name));
          if (pages++ === 0) await s.delete(newestFirst[4]!); // deleted while paging: not listed later
          after = page.next ?? undefined;
        } while (after);
        assert.deepEqual(
          seen,
          newestFirst.filter((name) => name !== newestFirst[4]),
        );
        assert.equal(pages, 2);
        for (const bad of ['', 'abc', Buffer.from('12:file_x').toString('base64url'), Buffer.from(`-1:${newFileName()}`).toString('base64url')]) {
          await assert.rejects(s.list({ limit: 1, after: bad }), InvalidFileCursorError, bad);
        }
      } finally {
        await s.close();
      }
    });
  });
}

describe('PostgreSQL: one store for every replica', () => {
  test('stores on separate pools (replicas) see each other’s files and share one quota, exact under a race', async () => {
    const url = await server.createDatabase();
    const quota = { maxFiles: 7, maxBytes: 1 << 20 };
    const replicas = await Promise.all(Array.from({ length: 3 }, () => pgStore(url, quota)));
    const [a, b, c] = replicas.map((r) => r.store) as [PgFileStore, PgFileStore, PgFileStore];
    const r = await store(a, 'made on A');
    assert.equal(await b.text(r.name), 'made on A');
    assert.deepEqual(
      (await c.list({ limit: 10 })).files.map((f) => f.name),
      [r.name],
    );
    const results = await Promise.allSettled(replicas.flatMap(({ store: s }) => Array.from({ length: 10 }, () => s.reserve(newFileName(), 1))));
    assert.equal(results.filter((x) => x.status === 'fulfilled').length, 6, 'one file stored, six reservations: seven in all, across three replicas');
    assert.equal(await c.delete(r.name), true);
    assert.equal(await a.get(r.name), undefined);
    assert.equal((await b.usage()).count, 6);
  });

  test('a reservation its replica never finished lapses and is swept, with its room', async () => {
    const url = await server.createDatabase();
    const { store: s, pool } = await pgStore(url, { maxFiles: 1, maxBytes: 100 }, { reservationMs: 60_000 });
    const dead = await s.reserve(newFileName(), 50); // its replica dies here
    await assert.rejects(s.reserve(newFileName(), 1), QuotaError);
    await pool.query(`UPDATE chunkd_files SET expires_at = now() - interval '1 second' WHERE name = $1`, [dead.name]); // its time passes
    assert.equal(await s.sweep(), 1);
    assert.deepEqual(await s.usage(), { count: 0, bytes: 0 });
    await s.reserve(newFileName(), 1);
  });

  test('one sweep per interval for the whole database: of several replicas due at once, one sweeps', async () => {
    const url = await server.createDatabase();
    const replicas = await Promise.all(Array.from({ length: 4 }, () => pgStore(url, BIG, { sweepMs: 3_600_000 })));
    const [first] = replicas.map((r) => r.store) as [PgFileStore];
    for (let i = 0; i < 3; i++) await store(first, `old ${i}`, { at: Date.now() - 10_000, expires: Date.now() - 5_000 });
    const { rows } = await replicas[0]!.pool.query<{ swept_at: string }>('SELECT swept_at::text FROM chunkd_file_sweep');
    assert.equal(rows[0]!.swept_at, '-infinity', 'never swept: due');
    const swept = await Promise.all(replicas.map(({ store: s }) => (s as PgFileStore).sweepIfDue()));
    assert.deepEqual(swept.sort(), [0, 0, 0, 3], 'one replica swept the three; the others found the interval claimed');
    assert.deepEqual(await Promise.all(replicas.map(({ store: s }) => (s as PgFileStore).sweepIfDue())), [0, 0, 0, 0], 'not due again within the interval');
  });

  test('the schema is recorded as versioned steps under "files", applied once by stores opening together', async () => {
    const url = await server.createDatabase();
    const replicas = await Promise.all(Array.from({ length: 4 }, () => pgStore(url, BIG)));
    const { rows } = await replicas[0]!.pool.query<{ component: string; version: number }>(
      "SELECT component, version FROM chunkd_migrations WHERE component = 'files'",
    );
    assert.deepEqual(
      rows,
      FILE_MIGRATIONS.map((m) => ({ component: 'files', version: m.version })),
    );
    await assert.rejects(PgFileStore.open(replicas[0]!.pool, BIG, { reservationMs: 1000 }, []), /schema version 1, newer than this chunkd knows \(0\)/);
  });
});
