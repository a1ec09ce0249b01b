import { resolve } from 'node:path';
import { discover } from '../kernel/discovery.js';
import { ChunkdError } from '../kernel/errors.js';
import { exportModelMap, missingTargets, parseModelMap } from '../kernel/model-map.js';
import { defaultThreads, WorkerPool } from '../kernel/pool.js';
import { createApp, type App } from './app.js';
import { exportLlmSettings } from './llm-settings.js';
import { createLogger, type Level, type Logger } from './logger.js';
import { POOLED_JOB } from './pooled/answer.js';
import { PIPELINE_JOB } from './pooled/pipeline-answer.js';
import type { AppDeps } from './route.js';
import { postgresPool } from './storage/pg-pool.js';
import { pipelineStore } from './storage/service.js';
import { fileStore } from './files/service.js';
import { jobStore } from './jobs/service.js';
import type { Settings } from './settings.js';

export interface Service {
  name: string;
  value: unknown;
  close(): Promise<void>;
  /** Called once the app's deps exist (the worker pool among them): e.g. job consumers start here. */
  start?(deps: AppDeps): void;
}

/**
 * Long-lived resources opened at start-up and closed at shutdown (e.g. the pipeline store). A
 * factory sees the services opened before it (e.g. the PostgreSQL pool), and is closed before them.
 */
export type ServiceFactory = (settings: Settings, logger: Logger, services: Readonly<Record<string, unknown>>) => Promise<Service>;
export const SERVICES: ServiceFactory[] = [postgresPool, pipelineStore, fileStore, jobStore];

/** Closes in reverse order of opening: a service may still use those opened before it. */
async function closeAll(opened: Service[]): Promise<void> {
  for (const s of [...opened].reverse()) await s.close().catch(() => {});
}

export interface Booted {
  app: App;
  deps: AppDeps;
  close(): Promise<void>;
}

/** Discover plugins, open services and build the app: everything that happens once per process. */
export async function boot(settings: Settings, logger: Logger = createLogger(settings.logLevel as Level)): Promise<Booted> {
  exportPluginSettings(settings);
  await checkModelMap(settings, logger);
  const registry = await discover(settings.pluginsDir);
  const opened: Service[] = [];
  try {
    for (const open of SERVICES) opened.push(await open(settings, logger, Object.fromEntries(opened.map((s) => [s.name, s.value]))));
  } catch (e) {
    await closeAll(opened);
    throw e;
  }
  const threads = settings.workers === 'auto' ? defaultThreads() : settings.workers;
  const pool = new WorkerPool({ threads, warm: registry.list().map((p) => p.source), warmJobs: [POOLED_JOB, PIPELINE_JOB], onBug: (stack) => logger.log('error', 'worker failure', { error: stack }) });
  const deps: AppDeps = { registry, settings, logger, executor: pool, services: Object.fromEntries(opened.map((s) => [s.name, s.value])) };
  const app = createApp(deps);
  for (const s of opened) s.start?.(deps);
  return {
    app,
    deps,
    close: async () => void (await Promise.allSettled([pool.close(), closeAll(opened)])),
  };
}

/** The settings plugins read from the environment (also `chunkd chunk`, which runs them without a server). */
export function exportPluginSettings(settings: Settings): void {
  // Plugins read the recipes folder from the environment: worker threads copy it when they start.
  if (settings.recipesDir) process.env.CHUNKD_RECIPES_DIR = resolve(settings.recipesDir);
  else delete process.env.CHUNKD_RECIPES_DIR; // never one app's folder in the next app of this process
  // Model roots too (kernel/model-files.ts); unset, the environment (the setting's own source) stays as it is.
  if (settings.modelsDir.length) process.env.CHUNKD_MODELS_DIR = settings.modelsDir.map((d) => resolve(d)).join(',');
  exportModelMap(parseModelMap(settings.modelMap));
  exportLlmSettings(settings);
}

/** Every model --model-map serves must be installed: checked once at start, and the map logged. */
async function checkModelMap(settings: Settings, logger: Logger): Promise<void> {
  const modelMap = parseModelMap(settings.modelMap);
  const missing = await missingTargets(modelMap);
  if (missing.length) {
    throw new ChunkdError('BAD_REQUEST', `--model-map (CHUNKD_MODEL_MAP) names models that are not installed: ${missing.join(', ')}. Install them under --models-dir or the Hugging Face cache, or fix the mapping.`);
  }
  if (modelMap.size) logger.log('info', 'model map', { model_map: Object.fromEntries(modelMap) });
}
