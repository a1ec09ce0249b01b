/** The worker pool: large inputs and batches leave the event loop, with results identical to inline runs. */
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import type { Chunk } from '../kernel/chunk.js';
import { discover } from '../kernel/discovery.js';
import { balance } from '../kernel/engine/placement/pool.js';
import { threadNice } from '../kernel/engine/placement/nice.js';
import { Retirement } from '../kernel/engine/placement/retire.js';
import { INLINE_MAX_CHARS, WorkerPool } from '../kernel/engine/index.js';
import { busyPluginDir, markerDir, waitFor } from './helpers/busy-plugin.js';
import { startChild } from './helpers/child.js';
import { FIXTURES } from './helpers/fixtures.js';
import { moduleBeside } from '../kernel/paths.js';
import { chunkWith } from './helpers/run.js';

describe('balance', () => {
  const cases: [number[], number, number[][]][] = [
    [
      [1, 1, 1, 1],
      2,
      [
        [1, 1],
        [1, 1],
      ],
    ],
    [[5, 1, 1, 1, 1, 1], 2, [[5], [1, 1, 1, 1, 1]]],
    [[1, 2, 3], 1, [[1, 2, 3]]],
    [[1], 4, [[1]]],
    [
      [3, 3, 3, 3, 3, 3],
      3,
      [
        [3, 3],
        [3, 3],
        [3, 3],
      ],
    ],
    // two near-equal documents use both threads, whichever of them is the larger
    [[4, 4.1], 2, [[4], [4.1]]],
    [[4.1, 4], 2, [[4.1], [4]]],
  ];
  for (const [items, parts, expected] of cases) {
    test(`${JSON.stringify(items)} into ${parts}`, () =>
      assert.deepEqual(
        balance(items, (x) => x, parts),
        expected,
      ));
  }
});

const registry = await discover();
const token = registry.get('chunker', 'token');

describe('pooled runs', () => {
  const pool = new WorkerPool({ threads: 2 });
  after(() => pool.close());
  const big = Object.values(FIXTURES)
    .join('\n')
    .repeat(Math.ceil((2 * INLINE_MAX_CHARS) / 1000));

  test('a large text gives exactly what an inline run gives', async () => {
    const config = token.validateConfig({ chunk_size: 64, tokenizer: 'cl100k_base' });
    const inline = await chunkWith(token, config, big, 'codepoint');
    const pooled = await chunkWith(token, config, big, 'codepoint', { executor: pool });
    assert.ok(big.length > INLINE_MAX_CHARS);
    assert.deepEqual(pooled, inline);
  });

  test('a batch is split across threads and comes back in order', async () => {
    const texts = [big, 'short one', big.slice(0, 70_000), '', big.slice(1000)];
    const config = token.validateConfig({ chunk_size: 100 });
    assert.deepEqual(await chunkWith(token, config, texts, 'utf8', { executor: pool }), await chunkWith(token, config, texts, 'utf8'));
  });

  test('a config error inside a worker keeps its status and message', async () => {
    const config = token.validateConfig({ chunk_size: 4, chunk_overlap: 4 });
    await assert.rejects(
      chunkWith(token, config, big, 'codepoint', { executor: pool }),
      (e: any) => e.status === 400 && /smaller than chunk_size/.test(e.detail),
    );
  });

  test('an aborted job is abandoned, and the pool keeps working', async () => {
    const controller = new AbortController();
    const config = token.validateConfig({ chunk_size: 8, tokenizer: 'o200k_base' });
    const job = chunkWith(token, config, big.repeat(20), 'codepoint', { executor: pool, signal: controller.signal });
    controller.abort();
    await assert.rejects(job, (e: Error) => e.name === 'AbortError');
    const after = (await chunkWith(token, token.validateConfig({ chunk_size: 100 }), big, 'codepoint', { executor: pool })) as Chunk[];
    assert.equal(after.map((c) => c.text).join(''), big);
  });
});

describe('a worker after a large task', () => {
  type Heap = { used: number; thread: number; nice: number };
  const module = moduleBeside(import.meta.url, './helpers/heap-job');

  test('is replaced once it has answered: the next task runs in a new thread, with a small heap', async () => {
    const pool = new WorkerPool({ threads: 1 });
    try {
      const small = await pool.job<Heap>(module, { objects: 0 });
      const peak = await pool.job<Heap>(module, { objects: 2_000_000 });
      const later = await pool.job<Heap>(module, { objects: 0 });
      // ~2 million objects hold well over 100 MB; the same thread afterwards would still hold its arenas.
      assert.ok(peak.used > 150 * 1024 * 1024, `the task's heap reached only ${Math.round(peak.used / 2 ** 20)} MB`);
      assert.equal(peak.thread, small.thread, 'a small task does not replace its worker');
      assert.notEqual(later.thread, peak.thread, 'the large task left its worker in place');
      assert.ok(
        later.used < peak.used / 2,
        `heap in use after the task: ${Math.round(later.used / 2 ** 20)} MB, at its peak ${Math.round(peak.used / 2 ** 20)} MB`,
      );
      assert.equal(pool.retirement.replaced, 1);
    } finally {
      await pool.close();
    }
  });

  test('a task queued behind it is never handed to the worker being replaced', async () => {
    const pool = new WorkerPool({ threads: 1 });
    try {
      await pool.ready; // the worker is free, so the large task starts at once
      // Queued while the large task runs: piscina hands them to the first free worker as the large
      // task's answer arrives, before the pool reads that answer.
      const [large, ...queued] = await Promise.all([
        pool.job<Heap>(module, { objects: 2_000_000 }),
        pool.job<Heap>(module, { objects: 0 }),
        pool.job<Heap>(module, { objects: 0 }),
      ]);
      for (const q of queued) assert.notEqual(q.thread, large!.thread);
      assert.equal(pool.retirement.replaced, 1);
    } finally {
      await pool.close();
    }
  });

  test('marks of threads that ended without answering are swept, so every slot stays free for a live worker', () => {
    const retirement = new Retirement();
    const marks = new Int32Array(retirement.workerData.retiring);
    // Thread 5 still runs; threads 7 and 9 marked themselves and ended before answering (an aborted large task).
    marks.set([7, 5, 9]);
    const terminated: number[] = [];
    const pool = { threads: [{ threadId: 5, terminate: () => void terminated.push(5) }] } as never;
    const alive = { id: 5, currentUsage: 0 };
    assert.equal(retirement.balancer(null, [alive]), null, 'a marked worker gets no task');
    retirement.settle(pool, {});
    assert.deepEqual([...marks.slice(0, 3)], [0, 5, 0], "only the live thread's mark is kept");
    assert.deepEqual(terminated, [], 'an answer that asks for nothing ends no worker');
    retirement.settle(pool, { retire: 5 });
    assert.deepEqual(terminated, [5]);
    assert.equal(retirement.replaced, 1);
  });

  test('workers run at the nice increment asked, and so does the one that replaces a large worker; the calling thread keeps its own', async () => {
    const pool = new WorkerPool({ threads: 1, nice: 7 });
    try {
      const first = await pool.job<Heap>(module, { objects: 2_000_000 });
      const replacement = await pool.job<Heap>(module, { objects: 0 });
      assert.notEqual(replacement.thread, first.thread);
      // Linux only (kernel/engine/placement/nice.ts): elsewhere the workers keep the process's priority.
      assert.deepEqual([first.nice, replacement.nice], [getPriority() + threadNice(7), getPriority() + threadNice(7)]);
    } finally {
      await pool.close();
    }
  });
});

describe('the event loop stays free', () => {
  const dir = busyPluginDir();
  const text = 'x'.repeat(10 * 1024 * 1024);
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** Start a server process, send the busy job, and once it runs, ask /health (giving up after `patience` ms). */
  async function healthDuringJob(workers: string, patience: number): Promise<number | 'no answer'> {
    const server = await startChild(['--workers', workers, '--plugins-dir', dir, '--data-dir', markerDir(dir)]);
    const markers = markerDir(dir);
    try {
      const job = fetch(`${server.url}/v1/chunk/busy`, { method: 'POST', body: JSON.stringify({ text, marker_dir: markers }) });
      await waitFor(join(markers, 'started'));
      const health = await fetch(`${server.url}/health`, { signal: AbortSignal.timeout(patience) }).then(
        (r) => r.status,
        () => 'no answer' as const,
      );
      writeFileSync(join(markers, 'release'), '');
      assert.equal((await job).status, 200);
      return health;
    } finally {
      writeFileSync(join(markers, 'release'), '');
      await server.stop();
    }
  }

  test('/health answers while a 10 MB job holds a worker', async () => {
    assert.equal(await healthDuringJob('2', 20_000), 200);
  });

  test('control: when the same job runs on the event loop, /health cannot answer until it ends', async () => {
    assert.equal(await healthDuringJob('0', 1_000), 'no answer');
  });
});
