/**
 * The engine's face: what the service, the server, the CLI and the bench use to run plugin work.
 * Everything runs through a Runner; the rest is the data it takes and gives.
 */
export { Runner, isInterruption, ANSWER_ADVICE, type ChefLimits, type PluginStep, type RunnerLimits } from './runner.js';
export { isWriteStep, recipeCost, type DocResult, type Recipe, type ReturnType, type RunnerStep, type ExtractedDocument, type StoreTarget } from './recipe.js';
export { docBuffers, docWeight, movable, utf16Doc, type Doc, type FileDoc, type StructuredDoc } from './docs.js';
export { chunksSetting, documentOutputSetting, outputSetting } from './output/caps.js';
export { defaultThreads, inline, INLINE_MAX_CHARS, runsInline, runsJobs, split, WorkerPool, type Executor, type PoolOptions } from './placement/pool.js';
export {
  closeExtractPools,
  DEFAULT_POOL,
  defaultExtractThreads,
  EXTRACT_MEMORY_MB,
  SMALL_FILE_BYTES,
  type ExtractPoolOptions,
} from './placement/extract-pool.js';
export type { Job } from './placement/tasks.js';
export { isBlank } from './steps/chunk.js';
export { isThenable, type Maybe } from './maybe.js';
