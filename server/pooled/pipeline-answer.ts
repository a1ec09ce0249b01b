/** The main-thread side of a pooled pipeline run (server/pooled/answer.ts has the common part; the worker side is pipeline-job.ts). */
import type { Context } from 'koa';
import { isChunkdError } from '../../kernel/errors.js';
import type { WorkerPool } from '../../kernel/pool.js';
import type { Registry } from '../../kernel/registry.js';
import type { Limits } from '../limits.js';
import { namedPlugin } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import { runPooled, type Pooled } from './answer.js';
import type { PipelinePayload } from './pipeline-job.js';
import { errorData, limitsOf, sendJsonBytes, type PooledPayload } from './wire.js';
import { runsJobs } from '../../kernel/pool.js';
import { resolveDocument } from '../files/document-input.js';
import { FILE_STORE } from '../files/service.js';
import type { FileStore } from '../files/store.js';
import { setIgnoredKeys } from '../ignored-keys.js';
import { checkExecute } from '../pipelines/body.js';
import { documentIds, pipelineRecipe, type StoredDocument } from '../pipelines/execute.js';
import { checkSlugRun, flattens, type SlugRunBody } from '../pipelines/slug-run.js';
import type { AppDeps } from '../route.js';
import { pipelineDocuments, preparedDocuments, type Documents } from '../stream/documents.js';
import { bugLogger, streamDocuments } from '../stream/ndjson.js';

export const PIPELINE_JOB = new URL(`./pipeline-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

/** A pipeline run's large body, in a worker; an unknown pipeline is its 404, once the body is known to be JSON (as inline). */
export async function pipelinePooled(ctx: Context, pool: WorkerPool, find: () => Promise<PipelineRecord>, registry: Registry, limits: Limits, mode: PooledPayload['mode'], slug = false): Promise<Pooled> {
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
  return runPooled(ctx, pool, PIPELINE_JOB, (body) => ({ body, pipeline, sources, limits: limitsOf(limits), threads: pool.threads, mode, documentInput: true, slug }) satisfies PipelinePayload);
}

/**
 * A pipeline run's whole answer, for both pipeline APIs: NDJSON when the client asks for it, else
 * JSON (under `envelope`, `{"chunks": …}`, when given). A large body is parsed in a worker; the
 * documents run through the document runner (kernel/runner.ts) wherever the body was parsed. A
 * slug run (`slug`) reads its own body, and a list of texts answers one flat list unless `nested`.
 */
export async function answerPipelineRun(
  ctx: Context,
  deps: AppDeps,
  find: () => Promise<PipelineRecord>,
  { envelope, ndjson, slug = false }: { envelope?: string; ndjson: boolean; slug?: boolean },
): Promise<void> {
  const { executor, settings } = deps;
  const send = (parts: Uint8Array[]) => sendJsonBytes(ctx, envelope === undefined ? parts : [encoder.encode(`{${JSON.stringify(envelope)}:`), ...parts, CLOSE]);
  let docs: Documents | undefined;
  let flat = false;
  // An uploaded file's chef and structure (server/files/document-input.ts), for the chunk step.
  let file = ctx.state.document as StoredDocument | undefined;
  if (ctx.state.rawBody && runsJobs(executor)) {
    const pooled = await pipelinePooled(ctx, executor, find, deps.registry, settings, ndjson ? 'documents' : 'answer', slug);
    if ('bytes' in pooled) return send([pooled.bytes]);
    if ('prepared' in pooled) {
      const { unit, returnType, list, docs: texts } = pooled.prepared;
      flat = pooled.prepared.flat === true;
      const ids = documentIds({ document: pooled.prepared.document }, file);
      docs = await preparedDocuments(await pipelineRecipe(await find(), unit, returnType, deps, false, ids), texts, list, executor, settings);
    } else {
      file = await resolveDocument(pooled.body, deps.services[FILE_STORE] as FileStore); // a body naming an uploaded file
      ctx.request.body = pooled.body;
    }
  }
  if (!docs) {
    const pipeline = await find();
    const onIgnored = (keys: string[]) => setIgnoredKeys(ctx, keys);
    const body = slug ? checkSlugRun(ctx.request.body, onIgnored) : checkExecute(ctx.request.body, onIgnored);
    flat = slug && flattens(body as SlugRunBody);
    docs = await pipelineDocuments(pipeline, body, deps, ctx.state.signal as AbortSignal | undefined, file);
  }
  if (ndjson) return streamDocuments(ctx, docs, Math.max(1, executor.threads), bugLogger(deps.logger, ctx));
  send(await docs.runner.answer(docs.recipe, docs.docs, { list: docs.list, flat, signal: ctx.state.signal as AbortSignal | undefined }));
}

const encoder = new TextEncoder();
const CLOSE = encoder.encode('}');
