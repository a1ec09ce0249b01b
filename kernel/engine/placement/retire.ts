/**
 * Replacing a worker that a task left large. What a task allocates outside V8's heap (buffers, the
 * C allocator's arenas of the worker's thread) stays with the process for as long as the thread
 * lives, even once the heap is collected; ending the thread gives it back. A worker that grew past
 * a bound marks itself in memory every thread shares, before it answers; the pool's balancer then
 * gives it no task, and the pool ends it once the answer is in (piscina starts a replacement, which
 * loads its plugins on its first task). The mark is what keeps the next task off it: piscina hands
 * a queued task to the worker that just answered before the answer's promise settles, so a
 * decision taken only on the answer could end a worker that had already been given one.
 *
 * Only for a pool that keeps a fixed number of threads (minThreads = maxThreads): one that lets its
 * threads go when idle starts no replacement, and a task held back from the marked worker would
 * wait for ever (the extraction pool's threads end after a minute idle instead).
 */
import { threadId, workerData } from 'node:worker_threads';
import type { Piscina } from 'piscina';

/** Slots of worker thread ids marked to be replaced: more than a pool's workers, each marked once. */
const SLOTS = 64;

/** What a pool gives its workers (as workerData) so they can mark themselves. */
export interface RetireData {
  retiring: SharedArrayBuffer;
}

/** A pool's side: the shared marks, the balancer that skips marked workers, and the replacing. */
export class Retirement {
  private readonly marks = new Int32Array(new SharedArrayBuffer(4 * SLOTS));
  /** Workers replaced since the pool started (tests read it). */
  replaced = 0;

  /** The workers' data: the shared marks. */
  get workerData(): RetireData {
    return { retiring: this.marks.buffer as SharedArrayBuffer };
  }

  /**
   * Piscina's balancer: the first idle worker that is not marked and still runs (a stopped
   * thread's id is -1), one task per worker at a time as piscina's own default.
   */
  readonly balancer = <W extends { id: number; currentUsage: number }>(_task: unknown, workers: W[]): W | null =>
    workers.find((w) => w.currentUsage === 0 && w.id >= 0 && !this.marks.includes(w.id)) ?? null;

  /** After each answer: end the worker that answered it if it marked itself; forget the marks of threads gone (a marked worker whose task was aborted). */
  settle(pool: Piscina, outcome: { retire?: number }): void {
    const live = new Set(pool.threads.map((t) => t.threadId));
    for (let i = 0; i < SLOTS; i++) {
      const id = Atomics.load(this.marks, i);
      if (id !== 0 && !live.has(id)) Atomics.compareExchange(this.marks, i, id, 0);
    }
    const worker = outcome.retire === undefined ? undefined : pool.threads.find((t) => t.threadId === outcome.retire);
    if (!worker || !this.marks.includes(outcome.retire!)) return;
    this.replaced++;
    void worker.terminate();
  }
}

/**
 * A worker's side: mark this thread to be replaced, in a free slot. False when the pool gave no
 * marks (a pool that does not replace workers) or every slot is taken: the worker then stays.
 */
export function markRetiring(): boolean {
  const shared = (workerData as Partial<RetireData> | null)?.retiring;
  if (!(shared instanceof SharedArrayBuffer)) return false;
  const marks = new Int32Array(shared);
  for (let i = 0; i < marks.length; i++) if (Atomics.compareExchange(marks, i, 0, threadId) === 0) return true;
  return false;
}
