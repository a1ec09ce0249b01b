/**
 * The extraction pool (kernel/engine/placement/extract-pool.ts): a time budget per file (413 naming it, the
 * worker stopped and the next file read), a bounded queue (503 with Retry-After), and a lane kept
 * for small files so that one never waits behind slow large ones. Judged by statuses and by which
 * file is answered first; the slow file is a 1,999-page PDF (seconds to read) against budgets and
 * files far from it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WorkerPool } from '../kernel/engine/index.js';
import { extractText } from './helpers/extract.js';
import type { RunWith } from './helpers/run.js';
import { closeExtractPools, SMALL_FILE_BYTES, type ExtractPoolOptions } from '../kernel/engine/index.js';
import { extractPool } from '../kernel/engine/placement/extract-pool.js';
import { rejectsWith } from './helpers/env.js';
import { manyPagesPdf } from './helpers/hostile-pdf.js';
import { getPriority } from 'node:os';
import { threadNice } from '../kernel/engine/placement/nice.js';
import { moduleBeside } from '../kernel/paths.js';

const utf8 = (s: string) => new TextEncoder().encode(s);
const slow = manyPagesPdf(1999);

describe('extraction pool', () => {
  let executor: WorkerPool;
  before(async () => {
    executor = new WorkerPool({ threads: 1 });
    await executor.ready;
  });
  after(async () => {
    await executor.close();
    await closeExtractPools();
  });

  it('the slow file is large (not small-lane material)', () => {
    assert.ok(slow.length > SMALL_FILE_BYTES, `${slow.length} bytes`);
  });

  it('a file over its time budget → 413 naming the limit; its worker is stopped and the next file is read', async () => {
    const pool = { threads: 1, maxMs: 300, maxQueue: 4, names: { maxMs: '--max-extract-ms, CHUNKD_MAX_EXTRACT_MS' } };
    await rejectsWith(
      extractText(slow, { filename: 'slow.pdf' }, { executor, pool }),
      413,
      /longer to extract than this server spends on one file \(300 ms, limit --max-extract-ms, CHUNKD_MAX_EXTRACT_MS\)/,
    );
    assert.equal((await extractText(utf8('<p>next</p>'), { filename: 'next.html' }, { executor, pool: { ...pool, maxMs: 60_000 } })).text, 'next');
  });

  it('a full queue → 503 with Retry-After; a waiting file that is cancelled leaves the queue', async () => {
    const pool: Partial<ExtractPoolOptions> = { threads: 1, maxMs: 60_000, maxQueue: 1 };
    const stop = new AbortController();
    const options: RunWith = { executor, pool, signal: stop.signal };
    const running = extractText(slow, { filename: 'a.pdf' }, options).catch((e: Error) => e);
    const waiting = extractText(slow, { filename: 'b.pdf' }, options).catch((e: Error) => e);
    await new Promise((r) => setImmediate(r));
    await assert.rejects(extractText(slow, { filename: 'c.pdf' }, options), (e: { status: number; headers: Record<string, string>; detail: string }) => {
      assert.equal(e.status, 503);
      assert.match(e.headers['Retry-After'] ?? '', /^[1-9]\d*$/);
      assert.match(e.detail, /1 more waiting \(limit maxExtractQueue\)/);
      return true;
    });
    const queue = extractPool({ threads: 1, maxMs: 60_000, maxQueue: 1, memoryMb: 512 });
    assert.equal(queue.queued, 1);
    stop.abort();
    await Promise.all([running, waiting]);
    assert.equal(queue.queued, 0);
  });

  it('a small file behind slow large ones is answered first, in the lane kept for small files', async () => {
    const pool: Partial<ExtractPoolOptions> = { threads: 2, maxMs: 60_000, maxQueue: 8 };
    const stop = new AbortController();
    const order: string[] = [];
    const settle = (name: string, p: Promise<unknown>) =>
      p.then(
        () => order.push(name),
        () => order.push(name),
      );
    const big = [1, 2, 3].map((i) => settle(`pdf ${i}`, extractText(slow, { filename: `${i}.pdf` }, { executor, pool, signal: stop.signal })));
    await new Promise((r) => setImmediate(r));
    const small = await extractText(utf8('<p>small</p>'), { filename: 'small.html' }, { executor, pool });
    order.push('html');
    assert.equal(small.text, 'small');
    assert.deepEqual(order, ['html'], 'the small file is answered before any large one');
    const lanes = extractPool({ threads: 2, maxMs: 60_000, maxQueue: 8, memoryMb: 512 });
    assert.deepEqual(lanes.started, { any: 1, small: 1 });
    assert.equal(lanes.queued, 2);
    stop.abort();
    await Promise.all(big);
  });

  it('its threads run at the nice increment asked (--worker-nice), the calling thread at its own', async () => {
    const own = getPriority();
    const pool = extractPool({ threads: 1, maxMs: 60_000, maxQueue: 4, memoryMb: 512, nice: 5 });
    const outcome = await pool.run({ kind: 'job', module: moduleBeside(import.meta.url, './helpers/heap-job'), payload: { objects: 0 } }, 0);
    assert.ok('done' in outcome, JSON.stringify(outcome));
    // Linux only (kernel/engine/placement/nice.ts): elsewhere the threads keep the process's priority.
    assert.equal((outcome.done as { nice: number }).nice, own + threadNice(5));
    assert.equal(getPriority(), own);
  });
});
