/**
 * A job module for the pools' tests: answers the files the worker's thread loaded with require()
 * (CommonJS's module cache) that are chunkd's worker module or its entry, by their paths from the
 * folder that holds them (kernel/engine/placement).
 */
import { createRequire } from 'node:module';
import type { Job } from '../../kernel/engine/placement/tasks.js';

const job: Job<null, string[]> = async () => ({
  value: Object.keys(createRequire(import.meta.url).cache)
    .map((file) => /placement\/(worker\.[jt]s|entry\.cjs)$/.exec(file)?.[1])
    .filter((name): name is string => name !== undefined),
});
export default job;
