/**
 * A job module for the worker pool's tests: `{ objects: N }` builds N small objects and holds them
 * to the end of the task, answering the heap in use at its peak, the worker's thread id and its
 * CPU priority (nice); `{ objects: 0 }` answers the heap in use, allocating nearly nothing.
 */
import { getPriority } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { threadId } from 'node:worker_threads';
import type { Job } from '../../kernel/engine/placement/tasks.js';

const job: Job<{ objects: number }, { used: number; thread: number; nice: number }> = async ({ objects }) => {
  if (objects === 0) return { value: { used: getHeapStatistics().used_heap_size, thread: threadId, nice: getPriority() } };
  const held = Array.from({ length: objects }, (_, i) => ({ i, s: `object ${i}` }));
  const used = getHeapStatistics().used_heap_size;
  if (held.length !== objects) throw new Error('the objects were not all made'); // `held` is live until here
  return { value: { used, thread: threadId, nice: getPriority() } };
};
export default job;
