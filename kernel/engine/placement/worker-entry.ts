/**
 * What a pool gives piscina to start its worker threads: entry.cjs, which imports ./worker (this
 * folder's build, or its source under tsx) on the first task. piscina loads a worker's module with
 * require() before it tries import(), and on Node 20 a worker terminated while require()
 * instantiates an ES module graph aborts the whole process ("FATAL ERROR: v8::Module::IsGraphAsync
 * ... must be used on an instantiated module"). Seen: a worker started to replace one whose task
 * was aborted, stopped by the server's shutdown. It could as well be an extraction worker starting
 * for an upload whose client goes away. Loaded by import(), a module stops cleanly with its thread.
 */
import { fileURLToPath } from 'node:url';
import { moduleBeside } from '../../paths.js';

export interface WorkerEntry<T extends object> {
  filename: string;
  workerData: T & { module: string };
}

export const workerEntry = <T extends object>(data: T): WorkerEntry<T> => ({
  filename: fileURLToPath(new URL('./entry.cjs', import.meta.url)),
  workerData: { ...data, module: moduleBeside(import.meta.url, './worker') },
});
