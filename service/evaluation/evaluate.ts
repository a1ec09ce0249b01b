/**
 * An evaluation: every candidate chunks every document, its chunks are placed (by text or at their
 * offsets) and indexed for the retriever, each question retrieves its top chunks, and the metrics
 * are summarised per candidate and k. A candidate runs whole in one place (service/evaluation/candidate.ts,
 * a pool task when there are workers); the services come from the caller (service/evaluation/runtime.ts),
 * so the same code serves the route and the CLI.
 */
import { fusionFor } from '../../kernel/fusion.js';
import type { RunnerStep } from '../../kernel/engine/index.js';
import type { CandidateOutcome, SharedInput } from './candidate.js';
import { rowRange, type EvalRows } from './eval-rows.js';
import type { Range } from './ranges.js';
import { maxOf, scoreRankings, type KScores, type QuestionDetail } from './score.js';
import type { EvalDocument, EvalSpec, EvalRetriever } from './spec.js';
import { EXACT_OF_MODE, storeOf } from './store-retriever.js';
import type { SearchMode } from '../../kernel/search-mode.js';
import type { Summary } from './metrics.js';

export interface Candidate {
  /** As the client named it: inline steps or a stored pipeline's id. */
  label: unknown;
  /** Its steps, resolved and validated (a stored pipeline's as it runs today). */
  steps: RunnerStep[];
}

export interface EvalServices {
  /** Unit-length embedding of each list of texts, list by list (the questions'). */
  embed?(lists: string[][], signal?: AbortSignal): Promise<number[][][]>;
  /** One candidate, whole: chunking, embedding and scoring in one place (service/evaluation/candidate.ts). */
  run(steps: RunnerStep[], input: SharedInput, signal?: AbortSignal): Promise<CandidateOutcome>;
  /**
   * A store retriever (`store:NAME`): each question's best rows of a candidate (their indices, best
   * first, up to k) through the store's index (service/evaluation/store-retriever.ts).
   */
  storeRank?(
    rows: EvalRows,
    documents: readonly EvalDocument[],
    questions: string[],
    questionVectors: number[][],
    k: number,
    signal?: AbortSignal,
  ): Promise<number[][]>;
  /** The search mode the store retriever runs (the one named, else the collection's default): its rows are labelled `store:NAME:MODE`. */
  storeMode?: SearchMode;
  progress?(event: Progress): void;
  signal?: AbortSignal;
}

export interface Progress {
  /** Candidates done so far, and how many in all. */
  done: number;
  total: number;
  /** `started`: a candidate's task began (it chunks and scores in one go); `scored`: it is done. */
  stage: 'embedded questions' | 'started' | 'scored';
  candidate?: number;
}

export interface CandidateResult {
  candidate: unknown;
  retriever: EvalRetriever;
  k: number;
  recall: Summary;
  precision: Summary;
  iou: Summary;
  precision_omega: Summary;
  chunks: number;
  mean_tokens: number;
  /** Wall time of this candidate: chunking, embedding and scoring (shared by its k rows). */
  time_ms: number;
  /** With `detail`: one entry per question, in request order. */
  questions?: QuestionDetail[];
}

export async function evaluate(spec: EvalSpec, candidates: Candidate[], services: EvalServices): Promise<{ results: CandidateResult[] }> {
  const { signal } = services;
  const needsVectors = spec.retriever !== 'bm25';
  if (needsVectors && !services.embed) throw new Error('An embeddings retriever needs an embed service.');
  const questionVectors = needsVectors
    ? (
        await services.embed!(
          spec.questions.map((q) => [q.question]),
          signal,
        )
      ).map((l) => l[0]!)
    : undefined;
  if (needsVectors) services.progress?.({ done: 0, total: candidates.length, stage: 'embedded questions' });
  const questions = spec.questions.map((q) => ({
    question: q.question,
    references: q.references.map((r): Range => ({ doc: r.document, start: r.start_index, end: r.end_index })),
  }));
  const store = storeOf(spec.retriever);
  if (store !== undefined && (!services.storeRank || !services.storeMode)) throw new Error('A store retriever needs a storeRank service and its mode.');
  // A store retriever's candidate task scores the exact retriever of the store's mode too (the figure beside the store's) and hands back the rows to write.
  const retriever = store === undefined ? (spec.retriever as SharedInput['retriever']) : EXACT_OF_MODE[services.storeMode!];
  const input: SharedInput = {
    documents: spec.documents,
    unit: spec.unit,
    locate: spec.locate,
    retriever,
    ks: spec.k,
    detail: spec.detail,
    questions,
    ...(questionVectors ? { questionVectors } : {}),
    // hybrid fuses as a store's hybrid mode does for this model
    ...(retriever === 'hybrid' ? { fusion: fusionFor(spec.embeddingModel) } : {}),
    ...(store === undefined ? {} : { rows: true }),
  };
  const results: CandidateResult[] = [];
  for (const [c, candidate] of candidates.entries()) {
    const started = performance.now();
    services.progress?.({ done: c, total: candidates.length, stage: 'started', candidate: c });
    const { scores, chunks, tokens, rows, omega } = await services.run(candidate.steps, input, signal);
    const runs: { retriever: EvalRetriever; scores: KScores[] }[] = [];
    if (store !== undefined) {
      const ranked = await services.storeRank!(
        rows!,
        spec.documents,
        questions.map((q) => q.question),
        questionVectors!,
        maxOf(spec.k),
        signal,
      );
      const rankings = ranked.map((r) => r.map((i) => rowRange(rows!, spec.documents, i)));
      runs.push({
        retriever: `store:${store}:${services.storeMode}`,
        scores: scoreRankings({ ks: spec.k, questions, rankings, omega: omega!, detail: spec.detail }),
      });
    }
    runs.push({ retriever, scores });
    const time_ms = Math.round(performance.now() - started);
    for (const run of runs) {
      for (const s of run.scores) {
        const row: CandidateResult = {
          candidate: candidate.label,
          retriever: run.retriever,
          k: s.k,
          recall: s.recall,
          precision: s.precision,
          iou: s.iou,
          precision_omega: s.precision_omega,
          chunks,
          mean_tokens: chunks ? tokens / chunks : 0,
          time_ms,
        };
        if (s.questions) row.questions = s.questions;
        results.push(row);
      }
    }
    services.progress?.({ done: c + 1, total: candidates.length, stage: 'scored', candidate: c });
  }
  return { results };
}
