/**
 * One full collection of this thread's heap once it has had no large work for a moment.
 *
 * A large store write makes its rows as objects on the calling thread (100,000 chunks: ~100 MB of
 * heap), garbage once they are stored. A thread that then only answers small requests allocates
 * little, so V8 kept that heap, and the next large write's workers grew the process on top of it
 * (bench/big-write.ts --chunks 100000 --rewrite: RSS peak 997–1,097 MB, 855–908 MB 5 s after the
 * answer; with this, 855–960 and 612–677 MB; docs/performance.md). The collection took 26–38 ms
 * there, once, IDLE_MS after the last large write: a thread that goes on writing collects as V8
 * decides meanwhile.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Quiet time after the last large work before the collection runs. */
const IDLE_MS = 500;

let collect: (() => void) | null | undefined;
/**
 * V8's full collection, taken as test tools take it: the flag that exposes it is set only while
 * one fresh context is made, so no other context sees a `gc` global. Null where the runtime does
 * not give it (then V8 collects as it decides, as before).
 */
function collector(): (() => void) | null {
  // A process started with --expose-gc has it already: its flag is left as it is.
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (collect === undefined && typeof exposed === 'function') collect = exposed;
  if (collect === undefined) {
    try {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    } catch {
      collect = null;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  }
  return collect;
}

let timer: NodeJS.Timeout | undefined;
let runs = 0;

/** Large work has just ended on this thread: collect its garbage once the thread has had none for IDLE_MS. */
export function collectWhenIdle(): void {
  clearTimeout(timer);
  timer = setTimeout(() => {
    timer = undefined;
    const gc = collector();
    if (!gc) return;
    gc();
    runs++;
  }, IDLE_MS);
  timer.unref();
}

/** Collections run on this thread so far, and whether one is waiting for the thread to idle (tests). */
export const idleCollections = (): { runs: number; pending: boolean } => ({ runs, pending: timer !== undefined });
