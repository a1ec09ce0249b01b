import { discover } from '../kernel/discovery.js';
import { Stores } from './stores/stores.js';
import { ChunkdError } from '../kernel/errors.js';
import { missingTargets, parseModelMap } from '../kernel/model-map.js';
import { defaultThreads, WorkerPool } from '../kernel/engine/index.js';
import { runnerOf } from './limits.js';
import { exportPluginSettings } from './plugin-settings.js';
import type { Logger } from './logger.js';
import { POOLED_JOB } from './large-bodies/answer.js';
import { PIPELINE_JOB } from './large-bodies/pipeline-answer.js';
import type { AppDeps, Service, ServiceFactory } from './deps.js';
import type { Services } from './services.js';
import { lockDataDir } from './storage/data-dir-lock.js';
import { sweepScratch } from './evaluation/scratch.js';
import { postgresPool, unreachableReason } from './storage/pg-pool.js';
import { pipelineStore } from './storage/service.js';
import { fileStore, uploadAdmission } from './files/service.js';
import { jobStore } from './jobs/service.js';
import { settingOf, settingText, type Settings } from './settings.js';

export const SERVICES: ServiceFactory[] = [postgresPool, uploadAdmission, pipelineStore, fileStore, jobStore];
/**
 * The services that live in PostgreSQL with --database-url, by the name each is offered under:
 * while the database cannot be reached at start-up, each name holds a stand-in that answers 503.
 */
const DATABASE_SERVICES: readonly [DatabaseService, ServiceFactory][] = [
  ['pipelines', pipelineStore],
  ['files', fileStore],
  ['jobs', jobStore],
];

type DatabaseService = 'pipelines' | 'files' | 'jobs';

/** Waits between two attempts to reach the database at start-up: doubling from the first to the last. */
export const DATABASE_RETRY_MS = { first: 250, max: 10_000 };

/** The stand-ins for every database service, while the database is out of reach. */
const standIns = (state: { reason: string; attempt: number }): Pick<Services, DatabaseService> => ({
  pipelines: standIn(state),
  files: standIn(state),
  jobs: standIn(state),
});

/** Closes in reverse order of opening: a service may still use those opened before it. */
async function closeAll(opened: Service[]): Promise<void> {
  for (const s of [...opened].reverse()) await s.close().catch(() => {});
}

export interface Assembled {
  deps: AppDeps;
  /**
   * Resolves once every service is open: at once, unless the database could not be reached at
   * start-up (then the server answers meanwhile, and keeps trying). Rejects when opening fails
   * for a reason retrying cannot fix (a schema newer than this chunkd, a failing migration).
   */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** Why a start-up failure is the database being out of reach (safe to log), or undefined when it is not. */
function unreachable(e: unknown): string | undefined {
  for (let at = e, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const reason = unreachableReason(at);
    if (reason) return reason;
  }
  return undefined;
}

/** What stands in for a database service until the database answers: every call is a 503 saying so. */
function standIn<T>(state: { reason: string; attempt: number }): T {
  const refuse = () =>
    Promise.reject(
      new ChunkdError(
        'UNAVAILABLE',
        `The database is not reachable yet (${state.reason}); this replica keeps trying to connect (attempt ${state.attempt}): retry in a moment.`,
        { 'Retry-After': '5' },
      ),
    );
  return new Proxy({}, { get: (_, key) => (key === 'then' ? undefined : refuse) }) as T;
}

/** The services opened so far, by noun (the assembly's one place that puts a value under its name). */
const servicesOf = (opened: readonly Service[]): Partial<Services> => {
  const out: Partial<Record<keyof Services, unknown>> = {};
  for (const s of opened) out[s.name] = s.value;
  return out as Partial<Services>;
};

/** Discover plugins, open services and start the worker pool: everything a server or the CLI needs once per process. */
export async function assemble(settings: Settings, logger: Logger): Promise<Assembled> {
  exportPluginSettings(settings);
  await checkModelMap(settings, logger);
  // One writer per data directory (its embedded stores and databases); replicas share PostgreSQL, and refuse writes to a local store.
  const unlock = settings.databaseUrl ? () => {} : lockDataDir(settings.dataDir, 'chunkd serve');
  try {
    return await assembleLocked(settings, logger, unlock);
  } catch (e) {
    unlock();
    throw e;
  }
}

async function assembleLocked(settings: Settings, logger: Logger, unlock: () => void): Promise<Assembled> {
  const registry = await discover(settings.pluginsDir);
  const threads = settings.workers === 'auto' ? defaultThreads() : settings.workers;
  const pool = new WorkerPool({
    threads,
    warm: registry.list().map((p) => p.source),
    warmJobs: [POOLED_JOB, PIPELINE_JOB],
    nice: settings.workerNice,
    onBug: (stack) => logger.log('error', 'worker failure', { error: stack }),
  });
  // The store connections (--stores, or the default under the data directory): a bad entry stops start-up, naming it; a store is opened on first use, or by `chunkd serve` once it listens (Stores.warm).
  let stores: Stores;
  try {
    stores = Stores.fromSettings(registry, settings, logger, process.env, runnerOf(pool, settings));
  } catch (e) {
    await pool.close();
    throw e;
  }
  const opened: Service[] = [
    {
      name: 'stores',
      value: stores,
      close: async () => void (await Promise.allSettled([stores.close(), pool.close()])),
      // Scratch collections a crashed evaluation left: removed in the background (a store that does not answer is skipped).
      start: () => void sweepScratch(stores, logger).catch((e: Error) => logger.log('warning', 'scratch collections not swept', { error: e.message })),
    },
  ];
  const services = () => servicesOf(opened);
  /** Opens the database services, all or none: what one attempt opened is closed when a later one fails. */
  const openDatabase = async (): Promise<Service[]> => {
    const mine: Service[] = [];
    try {
      for (const [, open] of DATABASE_SERVICES) mine.push(await open(settings, logger, { ...services(), ...servicesOf(mine) }));
      return mine;
    } catch (e) {
      await closeAll(mine);
      throw e;
    }
  };
  let waiting: { reason: string; attempt: number } | undefined;
  try {
    for (const open of SERVICES.filter((f) => !DATABASE_SERVICES.some(([, d]) => d === f))) opened.push(await open(settings, logger, services()));
    try {
      opened.push(...(await openDatabase()));
    } catch (e) {
      const reason = settings.databaseUrl ? unreachable(e) : undefined;
      if (reason === undefined) throw e;
      waiting = { reason, attempt: 1 };
    }
  } catch (e) {
    await closeAll(opened);
    throw e;
  }
  const deps: AppDeps = { registry, settings, logger, executor: pool, services: { ...services(), ...(waiting ? standIns(waiting) : {}) } as Services };
  for (const s of opened) s.start?.(deps);

  let closed = false;
  let wake: (() => void) | undefined;
  let ready: Promise<void> = Promise.resolve();
  if (waiting) {
    const state = waiting;
    // Keeps trying, with a doubling wait, until the database answers (or the server stops); each
    // attempt is logged with its reason, never the URL or its password.
    ready = (async () => {
      for (let wait = DATABASE_RETRY_MS.first; ; wait = Math.min(DATABASE_RETRY_MS.max, wait * 2)) {
        logger.log('warning', 'database unreachable; retrying', { attempt: state.attempt, reason: state.reason, retry_in_ms: wait });
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => (clearTimeout(timer), resolve());
        });
        if (closed) return;
        state.attempt++;
        let mine: Service[];
        try {
          mine = await openDatabase();
        } catch (e) {
          const reason = unreachable(e);
          if (reason === undefined) throw e;
          state.reason = reason;
          continue;
        }
        if (closed) return void (await closeAll(mine));
        opened.push(...mine);
        Object.assign(deps.services, servicesOf(mine));
        for (const s of mine) s.start?.(deps);
        logger.log('info', 'database ready', { attempts: state.attempt });
        return;
      }
    })();
    ready.catch(() => {}); // observed by serve(); never an unhandled rejection
  }
  return {
    deps,
    ready,
    close: async () => {
      closed = true;
      wake?.();
      await ready.catch(() => {});
      await closeAll(opened);
      unlock();
    },
  };
}

/** Every model --model-map serves must be installed: checked once at start, and the map logged. */
async function checkModelMap(settings: Settings, logger: Logger): Promise<void> {
  const modelMap = parseModelMap(settings.modelMap);
  const missing = await missingTargets(modelMap);
  if (missing.length) {
    throw new ChunkdError(
      'BAD_REQUEST',
      `${settingText('modelMap')} names models that are not installed: ${missing.join(', ')}. Install them under --${settingOf('modelsDir').flag} or the Hugging Face cache, or fix the mapping.`,
    );
  }
  if (modelMap.size) logger.log('info', 'model map', { model_map: Object.fromEntries(modelMap) });
}
