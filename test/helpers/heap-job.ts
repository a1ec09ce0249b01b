/**
 * A job module for the worker pool's tests: `{ objects: N }` builds N small objects and holds them
 * to the end of the task, answering the heap in use at its peak; `{ objects: 0 }` answers the heap
 * in use, allocating nearly nothing.
 */
import { getHeapStatistics } from 'node:v8';
import type { Job } from '../../kernel/engine/placement/tasks.js';

const job: Job<{ objects: number }, number> = async ({ objects }) => {
  if (objects === 0) return { value: getHeapStatistics().used_heap_size };
  const held = Array.from({ length: objects }, (_, i) => ({ i, s: `object ${i}` }));
  const used = getHeapStatistics().used_heap_size;
  if (held.length !== objects) throw new Error('the objects were not all made'); // `held` is live until here
  return { value: used };
};
export default job;
