/**
 * The one place evaluation calls the plugin runner (kernel/run.ts, kernel/pool.ts, the pipeline
 * executor): running a candidate's steps, embedding through the embeddings refinery, and scoring
 * in a worker when the executor has them. Everything else in service/evaluation/ is plain computation.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { ChunkdError, isChunkdError } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { runsJobs } from '../../kernel/pool.js';
import { ANSWER_ADVICE } from '../../kernel/runner.js';
import type { Registry } from '../../kernel/registry.js';
import { parseConfig, runRefinery, type Executor } from '../../kernel/run.js';
import type { Limits } from '../limits.js';
import { executePipeline } from '../pipelines/execute.js';
import type { Step } from '../pipelines/steps.js';
import type { PipelineRecord } from '../storage/store.js';
import { randomUUID } from 'node:crypto';
import type { Recipe } from '../../kernel/runner.js';
import { unknownNameMessage } from '../../kernel/suggest.js';
import { runnerOf } from '../limits.js';
import { storeTarget } from '../pipelines/write-step.js';
import { STORES, type StoresService } from '../stores/service.js';
import type { Candidate, EvalServices } from './evaluate.js';
import { scoreCandidate } from './score.js';

export const SCORE_JOB = new URL(`./score-job${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url).href;

export interface RuntimeDeps {
  registry: Registry;
  executor: Executor;
  settings: Limits;
  /** The server's services: a store retriever writes and searches through its STORES. */
  services?: Record<string, unknown>;
}

/** A candidate from validated steps (or a stored pipeline's): run through the pipeline executor, as POST /v1/pipelines/{id}/execute does. */
export function stepsCandidate(label: unknown, steps: Step[], unit: OffsetUnit, deps: RuntimeDeps, name = 'candidate'): Candidate {
  const pipeline: PipelineRecord = { id: typeof label === 'string' ? label : 'inline', name, description: null, steps, created_at: '', updated_at: '' };
  return {
    label,
    chunk: async (texts, signal) => {
      try {
        return (await executePipeline(pipeline, texts, unit, deps, signal)) as Chunk[][];
      } catch (e) {
        throw chunksRefusal(e);
      }
    },
  };
}

/**
 * A candidate's chunks over --max-output-bytes: evaluation answers scores, not chunks, and its
 * NDJSON streams only progress, so the 413 says to evaluate less, not to stream the chunks.
 */
function chunksRefusal(e: unknown): unknown {
  if (!isChunkdError(e) || e.code !== 'TOO_LARGE' || typeof e.detail !== 'string' || !e.detail.includes(ANSWER_ADVICE)) return e;
  const detail = e.detail.replace(/^The answer would take/, "A candidate's chunks would take").replace(ANSWER_ADVICE, 'Evaluate fewer or shorter documents, or candidates with larger chunks');
  return new ChunkdError('TOO_LARGE', detail);
}

/**
 * Embedding and scoring services. The embedding model is checked here, before any work: an unknown
 * model is the embeddings refinery's own 400 (with what to install or configure), missing extras its 501.
 */
export async function evalServices(deps: RuntimeDeps, embeddingModel: string | undefined): Promise<Omit<EvalServices, 'progress' | 'signal'>> {
  const score: EvalServices['score'] = (payload, signal) =>
    runsJobs(deps.executor) ? deps.executor.job(SCORE_JOB, payload, [], signal) : Promise.resolve(scoreCandidate(payload));
  if (embeddingModel === undefined) return { score };
  const plugin = deps.registry.find('refinery', 'embeddings');
  if (!plugin) throw new ChunkdError('BAD_REQUEST', 'This server has no embeddings refinery, which the embeddings and hybrid retrievers use: use the bm25 retriever.');
  const config = parseConfig(plugin, { embedding_model: embeddingModel }, ['body', 'embedding_model']);
  await plugin.instance(config); // an unknown model or a missing extra answers now, not mid-run
  const embed: EvalServices['embed'] = async (lists, signal) => {
    const chunks = lists.map((texts) => texts.map((text): Chunk => ({ id: '', text, start_index: 0, end_index: text.length, token_count: 0 })));
    const out = (await runRefinery(plugin, config, chunks.filter((l) => l.length), deps.executor, signal)) as Chunk[][];
    let at = 0;
    return chunks.map((l) => (l.length ? out[at++]!.map((c) => unit(c.embedding ?? [])) : []));
  };
  return { score, embed };
}

/**
 * A store retriever's ranking: the candidate's chunks written through the runner's write step to a
 * fresh collection of the store (each document under its id), each question searched by its
 * vector, the hits mapped back to where they are scored; the documents removed afterwards.
 */
export function storeRanker(deps: RuntimeDeps, model: string): EvalServices['storeRank'] {
  return async (store, { lists, questionVectors, k }, signal) => {
    const stores = deps.services?.[STORES] as StoresService | undefined;
    if (!stores?.names().includes(store)) {
      const names = stores?.names() ?? [];
      throw new ChunkdError('NOT_FOUND', names.length ? `${unknownNameMessage('store', store, names)} (GET /v1/stores lists them).` : 'This server has no store connections (--stores FILE, CHUNKD_STORES).');
    }
    const plugin = deps.registry.get('handshake', stores.handshakeOf(store) ?? '');
    const collection = `eval-${randomUUID().slice(0, 8)}`;
    const recipe: Recipe = { steps: [{ plugin, config: { answer_embeddings: false }, target: storeTarget(stores, store, collection, model, (i) => lists[i]?.document) }], unit: 'utf16', returnType: 'texts' };
    try {
      await runnerOf(deps.executor, deps.settings).answer(recipe, lists.map((l) => l.chunks), { list: true, signal });
      const out: number[][] = [];
      for (const vector of questionVectors) out.push((await stores.search(store, { collection, embedding: vector, k })).map((h) => h.metadata.eval_index as number));
      return out;
    } finally {
      for (const { document, chunks } of lists) if (chunks.length) await stores.deleteDocument(store, collection, document).catch(() => 0);
    }
  };
}

function unit(v: number[]): number[] {
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  return norm > 0 ? v.map((x) => x / norm) : v;
}
