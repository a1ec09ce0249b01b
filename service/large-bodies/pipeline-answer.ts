/** The main-thread side of a pooled pipeline run (service/large-bodies/answer.ts has the common part; the worker side is pipeline-job.ts). */
import { isChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/engine/index.js';
import type { Registry } from '../../kernel/registry.js';
import type { Limits } from '../limits.js';
import { namedPlugin } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import { runPooled, type Pooled, type RawRequest } from './answer.js';
import type { PipelinePayload } from './pipeline-job.js';
import { errorData, limitsOf, type PooledPayload } from './shared.js';
import { runsJobs } from '../../kernel/engine/index.js';
import { resolveDocument } from '../files/document-input.js';
import type { FileStore } from '../files/store.js';
import { checkExecute } from '../../wire/body-check.js';
import { documentIds, documentMetas, pipelineRecipe, type StoredDocument } from '../pipelines/execute.js';
import { checkSlugRun, flattens, type SlugRunBody } from '../pipelines/slug-run.js';
import type { AppDeps } from '../deps.js';
import { pipelineDocuments, preparedDocuments, type Documents } from '../document-runs/documents.js';
import { moduleBeside } from '../../kernel/paths.js';

export const PIPELINE_JOB = moduleBeside(import.meta.url, './pipeline-job');

/** A pipeline run's large body, in a worker; an unknown pipeline is its 404, once the body is known to be JSON (as inline). */
export async function pipelinePooled(
  raw: RawRequest,
  pool: WorkerPool,
  find: () => Promise<PipelineRecord>,
  registry: Registry,
  limits: Limits,
  mode: PooledPayload['mode'],
  slug = false,
): Promise<Pooled> {
  let pipeline: PipelinePayload['pipeline'];
  try {
    pipeline = await find();
  } catch (e) {
    if (!isChunkdError(e) || e.code !== 'NOT_FOUND') throw e;
    pipeline = { notFound: errorData(e) };
  }
  const sources: Record<string, string> = {};
  for (const step of 'steps' in pipeline ? pipeline.steps : []) {
    const named = namedPlugin(step);
    const plugin = named && registry.find(named.kind, named.name);
    if (named && plugin) sources[`${named.kind}:${plugin.name}`] = plugin.source;
  }
  return runPooled(
    raw,
    pool,
    PIPELINE_JOB,
    (body) => ({ body, pipeline, sources, limits: limitsOf(limits), threads: pool.threads, mode, documentInput: true, slug }) satisfies PipelinePayload,
  );
}

/** A pipeline run's request, as the route has it. */
export interface RunRequest {
  /** A large body left unparsed, for a worker (when the server has workers). */
  raw?: RawRequest;
  /** The parsed body otherwise. */
  body: unknown;
  /** An uploaded file's chef and structure, when the body named one (service/files/document-input.ts). */
  document?: StoredDocument;
  signal?: AbortSignal;
  /** Told the body's unknown keys, for the route to name in its answer. */
  onIgnored(keys: string[]): void;
}

/** A pipeline run's answer: its JSON bytes (made in a worker), or its documents for the runner, and whether they answer one flat list. */
export type PipelineRun = { bytes: Uint8Array } | { docs: Documents; flat: boolean };

/**
 * A pipeline run, for both pipeline APIs. A large body is parsed in a worker, which answers it
 * whole when it can (`ndjson` false); else the documents come back to run through the document
 * runner (kernel/engine/runner.ts). A slug run (`slug`) reads its own body, and a list of texts answers
 * one flat list unless `nested`.
 */
export async function runPipeline(
  req: RunRequest,
  deps: AppDeps,
  find: () => Promise<PipelineRecord>,
  { ndjson, slug = false }: { ndjson: boolean; slug?: boolean },
): Promise<PipelineRun> {
  const { executor, settings } = deps;
  let { body, document } = req;
  if (req.raw && runsJobs(executor)) {
    const pooled = await pipelinePooled(req.raw, executor, find, deps.registry, settings, ndjson ? 'documents' : 'answer', slug);
    if ('bytes' in pooled) return { bytes: pooled.bytes };
    if ('prepared' in pooled) {
      const { unit, returnType, list, docs: texts } = pooled.prepared;
      const ids = documentIds({ document: pooled.prepared.document }, document, texts.length);
      const metas = documentMetas({ ...(pooled.prepared.metadata ? { metadata: pooled.prepared.metadata } : {}) }, document);
      const docs = await preparedDocuments(await pipelineRecipe(await find(), unit, returnType, deps, false, ids, metas), texts, list, executor, settings);
      return { docs, flat: pooled.prepared.flat === true };
    }
    document = await resolveDocument(pooled.body, deps.services.files); // a body naming an uploaded file
    body = pooled.body;
  }
  const pipeline = await find();
  const checked = slug ? checkSlugRun(body, req.onIgnored) : checkExecute(body, req.onIgnored);
  const flat = slug && flattens(checked as SlugRunBody);
  return { docs: await pipelineDocuments(pipeline, checked, deps, req.signal, document), flat };
}
