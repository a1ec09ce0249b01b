/**
 * The one place evaluation calls the plugin runner (kernel/engine/runner.ts, kernel/engine/placement/pool.ts): resolving a
 * candidate's steps as a pipeline run does, embedding the questions through the embeddings
 * refinery, and running each candidate whole (chunking and scoring, evaluation/candidate.ts) in
 * one pool task when the executor has workers; a store retriever's rows then go to the store from
 * here (service/evaluation/store-retriever.ts). Everything else in service/evaluation/ is plain computation.
 */
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Plugin, Registry } from '../../kernel/registry.js';
import { parseConfig } from '../../kernel/request.js';
import { DEFAULT_LIMITS } from '../../kernel/chef/limits.js';
import { ANSWER_ADVICE, type Executor, type RunnerLimits } from '../../kernel/engine/index.js';
import { LIMIT_NAMES, runnerOf, type Limits } from '../limits.js';
import { pipelineRecipe } from '../pipelines/execute.js';
import type { Step } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import { embedLists, runCandidate, type CandidateOutcome, type CandidatePayload } from './candidate.js';
import type { Candidate, EvalServices } from './evaluate.js';
import { storeMode, storeRankings, type EvalStores } from './store-retriever.js';
import { moduleBeside } from '../../kernel/paths.js';

export const CANDIDATE_JOB = moduleBeside(import.meta.url, './candidate-job');

export interface RuntimeDeps {
  registry: Registry;
  executor: Executor;
  settings: Limits;
  /** The server's store connections: a store retriever writes to and searches one of them. */
  stores?: EvalStores;
}

/** A candidate from validated steps (or a stored pipeline's), resolved as POST /v1/pipelines/{id}/execute resolves them: a stale step is a 400 now. */
export async function stepsCandidate(label: unknown, steps: Step[], unit: OffsetUnit, deps: RuntimeDeps, name = 'candidate'): Promise<Candidate> {
  const pipeline: PipelineRecord = { id: typeof label === 'string' ? label : 'inline', name, description: null, steps, created_at: '', updated_at: '' };
  return { label, steps: (await pipelineRecipe(pipeline, unit, 'chunks', deps)).steps };
}

/** A candidate's chunks are held to the caps of a pipeline run's JSON answer, as if they were one. */
export const candidateLimits = (settings: Limits): RunnerLimits => ({
  maxOutputBytes: settings.maxOutputBytes,
  maxDocumentOutputBytes: settings.maxDocumentOutputBytes,
  maxChunks: settings.maxChunks,
  chef: { limits: { ...DEFAULT_LIMITS, maxTextChars: settings.maxTextChars, maxStructureSpans: settings.maxStructureSpans }, names: LIMIT_NAMES },
});

/**
 * The services of an evaluation. The embedding model is checked here, before any work: an unknown
 * model is the embeddings refinery's own 400 (with what to install or configure), missing extras its 501.
 */
export async function evalServices(
  deps: RuntimeDeps,
  embeddingModel: string | undefined,
  store?: string,
  mode?: string,
): Promise<Omit<EvalServices, 'progress' | 'signal'>> {
  const { executor, settings } = deps;
  if (store !== undefined && (!deps.stores || embeddingModel === undefined))
    throw new Error('A store retriever needs the stores service and an embedding model.');
  const limits = candidateLimits(settings);
  const runner = runnerOf(executor, settings);
  let embedding: { plugin: Plugin; config: Record<string, unknown> } | undefined;
  if (embeddingModel !== undefined) {
    const plugin = deps.registry.find('refinery', 'embeddings');
    if (!plugin)
      throw new ChunkdError('BAD_REQUEST', 'This server has no embeddings refinery, which the embeddings and hybrid retrievers use: use the bm25 retriever.');
    const config = parseConfig(plugin, { embedding_model: embeddingModel }, ['body', 'embedding_model']);
    await plugin.instance(config); // an unknown model or a missing extra answers now, not mid-run
    embedding = { plugin, config };
  }
  const bySource = new Map(deps.registry.list().map((p) => [p.source, p]));
  const run: EvalServices['run'] = (steps, input, signal) => {
    const payload: CandidatePayload = {
      steps: steps.map((s) => ({ source: s.plugin.source, config: s.config })),
      input,
      limits,
      ...(embedding ? { embedding: { source: embedding.plugin.source, config: embedding.config } } : {}),
    };
    const outcome = runner.pooled
      ? runner.job<CandidateOutcome>(CANDIDATE_JOB, payload, [], signal)
      : runCandidate(payload, async (source) => bySource.get(source)!, signal);
    return outcome.catch((e: unknown) => {
      throw chunksRefusal(e);
    });
  };
  if (!embedding) return { run };
  // the mode a search of the scratch collection (its model: embeddingModel) runs: the one named, else the collection's default
  const ran = store === undefined ? undefined : storeMode(deps.stores!, store, mode, embeddingModel!);
  const storeRank: EvalServices['storeRank'] =
    store === undefined
      ? undefined
      : (rows, documents, questions, vectors, k, signal) =>
          storeRankings(deps.stores!, store, embeddingModel!, rows, documents, questions, vectors, k, ran!, signal);
  // The questions, embedded where the runner places the refinery (their chunks' vectors are made in the candidate's task).
  const embed: EvalServices['embed'] = (lists, signal) => embedLists(runner, embedding!, lists, signal);
  return { run, embed, ...(storeRank ? { storeRank, storeMode: ran! } : {}) };
}

/**
 * A candidate's chunks over --max-output-bytes: evaluation answers scores, not chunks, and its
 * NDJSON streams only progress, so the 413 says to evaluate less, not to stream the chunks.
 */
function chunksRefusal(e: unknown): unknown {
  if (!isChunkdError(e) || e.code !== 'TOO_LARGE' || typeof e.detail !== 'string' || !e.detail.includes(ANSWER_ADVICE)) return e;
  const detail = e.detail
    .replace(/^The answer would take/, "A candidate's chunks would take")
    .replace(ANSWER_ADVICE, 'Evaluate fewer or shorter documents, or candidates with larger chunks');
  return new ChunkdError('TOO_LARGE', detail);
}
