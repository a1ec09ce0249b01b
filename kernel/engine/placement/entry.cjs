'use strict';
// Where a pool's worker threads start (worker-entry.ts says why this file is CommonJS): the worker
// module the pool names is imported on the first task, and runs every task.
const { workerData } = require('node:worker_threads');

async function load() {
  // Run from the sources (npm run dev): this thread needs tsx's hooks to import TypeScript.
  if (workerData.module.endsWith('.ts')) (await import('tsx/esm/api')).register();
  return import(workerData.module);
}

let worker;
module.exports = function run(task) {
  worker ??= load();
  return worker.then((m) => m.default(task));
};
