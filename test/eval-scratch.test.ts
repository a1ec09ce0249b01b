/**
 * Scratch collections of evaluation through a store (`eval-…`) that a crash left are removed at
 * start: every one made before the start on a store on this machine's disk, only old ones on a
 * shared store (another replica may be evaluating there now); other collections are kept.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { isLeftScratch, scratchCollection, STALE_MS } from '../service/evaluation/scratch.js';
import { Stores } from '../service/stores/stores.js';
import { startApp } from './helpers/app.js';

const chunk: Chunk = { id: 'x', text: 'a', start_index: 0, end_index: 1, token_count: 1, embedding: [1, 0] };

describe('scratch collections left by a crash', () => {
  test('which names are left scratch', () => {
    const now = Date.now();
    const fresh = scratchCollection(now - 1000);
    const old = scratchCollection(now - STALE_MS - 1000);
    assert.match(fresh, /^eval-[0-9a-z]{9}-[0-9a-f]{12}$/);
    assert.equal(isLeftScratch(fresh, true, now), true, 'local: made before the sweep');
    assert.equal(isLeftScratch(scratchCollection(now + 5), true, now), false, 'local: made after the sweep began (live)');
    assert.equal(isLeftScratch(fresh, false, now), false, 'shared: may be another replica’s live evaluation');
    assert.equal(isLeftScratch(old, false, now), true, 'shared: old');
    assert.equal(isLeftScratch('eval-0123456789abcdef0123', true, now), true, 'an earlier version’s name, local');
    assert.equal(isLeftScratch('eval-0123456789abcdef0123', false, now), false);
    for (const name of ['docs', 'eval', 'eval-results', 'evaluation-0123456789abcdef0123']) assert.equal(isLeftScratch(name, true, now), false, name);
  });

  test('a restart on the data directory removes the scratch collections of the default store and keeps the others', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'chunkd-scratch-'));
    try {
      // What a kill -9 mid-evaluation leaves: a scratch collection in the default LanceDB store.
      const registry = await discover();
      const left = Stores.fromSettings(registry, { stores: '', dataDir, databaseUrl: '' });
      const scratch = scratchCollection(Date.now() - 60_000);
      await left.write('default', scratch, 'd', [chunk], 'm');
      await left.write('default', 'docs', 'd', [chunk], 'm');
      await left.close();

      const app = await startApp({ 'data-dir': dataDir });
      try {
        let names: string[] = [];
        let error: string | undefined;
        for (let i = 0; i < 200; i++) {
          const [listing] = (await app.request('GET', '/v1/stores')).body as { collections: { name: string }[]; error?: string }[];
          names = listing!.collections.map((c) => c.name);
          error = listing!.error;
          if (!error && !names.includes(scratch)) break;
          await sleep(50);
        }
        assert.deepEqual(names, ['docs'], `the store listed${error ? ` with an error: ${error}` : ''}`);
      } finally {
        await app.close();
      }
    } finally {
      // LanceDB may still be finishing a file of the dropped table's record when the app has closed (seen once under load: ENOTEMPTY).
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
    }
  });
});
