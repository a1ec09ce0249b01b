/**
 * Bounded store work through the Stores service: a write, search or delete does not list every
 * collection (their model and dimension are kept once listed); a store holds at most
 * --max-collections-per-store collections (507 past it); at most --max-concurrent-searches
 * searches run at once, more wait their turn, and past the queue a 503 says to retry.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { ChunkdError } from '../kernel/errors.js';
import { CHUNKS_PER_WRITE_TIMEOUT, Stores, writeDeadline } from '../service/stores/stores.js';

/** A dropped-in handshake that counts its listings and holds each search until released (state in globalThis: it runs in this process). */
function countingDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chunkd-counting-'));
  mkdirSync(join(dir, 'counting'));
  writeFileSync(
    join(dir, 'counting', 'index.mjs'),
    `export default { name: 'counting', kind: 'handshake', summary: 'Counts its calls.', extras: [], capabilities: { vector: true, text: false },
      config: { type: 'object', properties: { space: { type: 'string', minLength: 1, default: 'a', description: 'Its state.' } } },
      load: () => import('./impl.mjs') };`,
  );
  writeFileSync(
    join(dir, 'counting', 'impl.mjs'),
    `export function create({ space }) {
  const spaces = globalThis.__chunkdCounting ??= new Map();
  if (!spaces.has(space)) spaces.set(space, { listings: 0, searching: 0, maxSearching: 0, waiting: [], cols: new Map() });
  const s = spaces.get(space);
  return {
    async collections() { s.listings++; return [...s.cols].map(([name, c]) => ({ name, count: c.n, model: c.model, dimension: c.dimension })); },
    async write(collection, document, rows, meta) { return this.writeMany(collection, [{ document, rows }], meta); },
    async writeMany(collection, docs, meta) {
      if (!s.cols.has(collection)) s.cols.set(collection, { n: 0, model: meta.model, dimension: meta.dimension });
      s.cols.get(collection).n += docs.reduce((n, d) => n + d.rows.length, 0);
    },
    async delete() { return 0; },
    async drop(collection) { s.cols.delete(collection); },
    async search() {
      s.searching++; s.maxSearching = Math.max(s.maxSearching, s.searching);
      await new Promise((r) => s.waiting.push(r));
      s.searching--;
      return [];
    },
    async close() {},
  };
}`,
  );
  return dir;
}

const registry = await discover([countingDir()]);
const state = (space: string) =>
  (
    globalThis as { __chunkdCounting?: Map<string, { listings: number; searching: number; maxSearching: number; waiting: (() => void)[] }> }
  ).__chunkdCounting!.get(space)!;

const chunk: Chunk = { id: 'x', text: 'a', start_index: 0, end_index: 1, token_count: 1, embedding: [1, 0] };

function open(space: string, settings: { maxCollectionsPerStore?: number; maxConcurrentSearches?: number } = {}): Stores {
  return Stores.fromSettings(registry, {
    stores: JSON.stringify([{ name: 's', handshake: 'counting', space }]),
    dataDir: '/nonexistent',
    databaseUrl: '',
    ...settings,
  });
}

describe('store operations and their bounds', () => {
  test('writes, searches and deletes do not list every collection: one listing, then the kept metadata', async () => {
    const stores = open('listings');
    await stores.write('s', 'c0', 'd0', [chunk], 'm');
    const after = state('listings').listings;
    assert.equal(after, 1, 'the first write looks the collection up once');
    const searching = [];
    for (let i = 0; i < 10; i++) {
      await stores.write('s', 'c0', `d${i}`, [chunk], 'm');
      searching.push(stores.search('s', { collection: 'c0', embedding: [1, 0], k: 1 }));
      await stores.deleteDocument('s', 'c0', `d${i}`);
    }
    while (state('listings').waiting.length < 10) await sleep(5);
    for (const r of state('listings').waiting.splice(0)) r();
    await Promise.all(searching);
    assert.equal(state('listings').listings, after, '30 calls, no listing');
    // Another model is still refused from the kept metadata.
    await assert.rejects(stores.write('s', 'c0', 'd0', [chunk], 'other'), (e: ChunkdError) => e.code === 'CONFLICT' && /'m'/.test(e.message));
    await stores.close();
  });

  test('a store holds at most --max-collections-per-store collections: one more is a 507 naming the store and the setting', async () => {
    const stores = open('limit', { maxCollectionsPerStore: 3 });
    for (const c of ['c1', 'c2', 'c3']) await stores.write('s', c, 'd', [chunk], 'm');
    await assert.rejects(stores.write('s', 'c4', 'd', [chunk], 'm'), (e: ChunkdError) => {
      assert.equal(e.status, 507);
      assert.match(
        e.message,
        /The store 's' holds 3 collections, the most one store may hold \(--max-collections-per-store, CHUNKD_MAX_COLLECTIONS_PER_STORE\)/,
      );
      return true;
    });
    await stores.write('s', 'c1', 'd2', [chunk], 'm'); // an existing collection still takes writes
    await stores.dropCollection('s', 'c1', []);
    await stores.write('s', 'c4', 'd', [chunk], 'm');
    // A fresh process counts from the store's listing.
    await assert.rejects(open('limit', { maxCollectionsPerStore: 3 }).write('s', 'c5', 'd', [chunk], 'm'), (e: ChunkdError) => e.status === 507);
    await stores.close();
  });

  test('at most --max-concurrent-searches searches run at once; more wait their turn; past the queue a 503', async () => {
    const stores = open('searches', { maxConcurrentSearches: 2 });
    await stores.write('s', 'c', 'd', [chunk], 'm');
    const search = () => stores.search('s', { collection: 'c', embedding: [1, 0], k: 1 });
    const running = Array.from({ length: 2 + 16 }, search); // 2 running, 16 (8 × 2) waiting
    while (state('searches').waiting.length < 2) await sleep(5);
    await assert.rejects(search(), (e: ChunkdError) => e.status === 503 && /--max-concurrent-searches/.test(e.message) && e.headers['Retry-After'] === '1');
    let released = 0;
    while (released < running.length) {
      const w = state('searches').waiting.shift();
      if (w) {
        w();
        released++;
      } else await sleep(5);
    }
    await Promise.all(running);
    assert.equal(state('searches').maxSearching, 2, 'never more than two at once');
    await stores.close();
  });
});

test('a write gets one query timeout per 10,000 chunks, at least one; no timeout stays none', () => {
  assert.equal(writeDeadline(60_000, 0), 60_000);
  assert.equal(writeDeadline(60_000, CHUNKS_PER_WRITE_TIMEOUT), 60_000);
  assert.equal(writeDeadline(60_000, CHUNKS_PER_WRITE_TIMEOUT + 1), 120_000);
  assert.equal(writeDeadline(60_000, 100_000), 600_000);
  assert.equal(writeDeadline(0, 100_000), 0);
});
