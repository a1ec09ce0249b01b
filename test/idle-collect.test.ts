/**
 * A store write of LARGE_WRITE_CHUNKS chunks or more has its garbage collected once the calling
 * thread idles (kernel/idle-collect.ts), refused or not; a smaller write leaves collecting to V8.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, test } from 'node:test';
import { discover } from '../kernel/discovery.js';
import { collectWhenIdle, idleCollections } from '../kernel/idle-collect.js';
import { LARGE_WRITE_CHUNKS, Stores } from '../service/stores/stores.js';
import { memoryHandshakeDir } from './helpers/memory-handshake.js';

const plugins = memoryHandshakeDir();
const stores = new Stores(await discover([plugins]), [{ name: 'mem', handshake: 'memory', config: { space: `idle-${process.pid}`, token: '' }, secrets: [] }], {
  replicaSet: false,
});
after(async () => {
  await stores.close();
  rmSync(plugins, { recursive: true, force: true });
});

const chunks = (n: number, embedding = (i: number) => [1, i + 1]) =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, text: `chunk ${i}`, start_index: 0, end_index: 1, token_count: 1, embedding: embedding(i) }));

/** Counts the full collections forced on this thread from now (what the GC observer marks as forced), until stop. */
function forcedCollections(): { stop(): Promise<number> } {
  let n = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const { kind, flags } = (e as unknown as { detail: { kind: number; flags: number } }).detail;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR && flags & constants.NODE_PERFORMANCE_GC_FLAGS_FORCED) n++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    async stop() {
      // The observer hears of a collection after it, in a later turn: waited for up to 10 s however busy the machine, then a
      // moment more for any second one. A collector that forced nothing still ends here with 0.
      for (let waited = 0; n === 0 && waited < 10_000; waited += 50) await sleep(50);
      await sleep(50);
      observer.disconnect();
      return n;
    },
  };
}

/** The collection the last write asked for has run: waited for, however busy the machine. */
async function collected(runsBefore: number): Promise<number> {
  while (idleCollections().pending) await sleep(50);
  return idleCollections().runs - runsBefore;
}

test('a write below the bound asks for no collection', async () => {
  await stores.write('mem', 'docs', 'small', chunks(LARGE_WRITE_CHUNKS - 1), 'm');
  assert.equal(idleCollections().pending, false);
});

test('a batch whose documents reach the bound together asks for a collection, run once the thread idles', async () => {
  const { runs } = idleCollections();
  await stores.writeMany(
    'mem',
    'docs',
    [
      { document: 'large-1', chunks: chunks(LARGE_WRITE_CHUNKS / 2) },
      { document: 'large-2', chunks: chunks(LARGE_WRITE_CHUNKS / 2) },
    ],
    'm',
  );
  assert.equal(idleCollections().pending, true);
  const forced = forcedCollections();
  assert.equal(await collected(runs), 1);
  // V8's own full collection ran, as asked (a count that went up with no collection would pass the line above).
  assert.equal(await forced.stop(), 1);
});

test('asked again before it has run, it runs once', async () => {
  const { runs } = idleCollections();
  collectWhenIdle();
  collectWhenIdle();
  assert.equal(await collected(runs), 1);
});

test('a refused large write is collected too: its rows were made before the refusal', async () => {
  const { runs } = idleCollections();
  const last = LARGE_WRITE_CHUNKS - 1;
  await assert.rejects(
    stores.write(
      'mem',
      'docs',
      'refused',
      chunks(LARGE_WRITE_CHUNKS, (i) => (i === last ? [0, 0] : [1, i + 1])),
      'm',
    ),
    (e: { status: number }) => e.status === 422,
  );
  assert.equal(await collected(runs), 1);
});
