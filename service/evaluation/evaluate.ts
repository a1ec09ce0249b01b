/**
 * An evaluation: every candidate chunks every document, its chunks are placed (by text or at their
 * offsets) and indexed for the retriever, each question retrieves its top chunks, and the metrics
 * are summarised per candidate and k. Runtime services (running steps, embedding, scoring) come
 * from the caller (service/evaluation/runtime.ts), so the same code serves the route and the CLI.
 */
import type { Chunk } from '../../kernel/chunk.js';
import { locateChunks } from './locate.js';
import type { Range } from './ranges.js';
import type { KScores, QuestionDetail, RetrieverName, ScorePayload } from './score.js';
import { storeOf, type EvalRetriever, type EvalSpec } from './spec.js';
import type { Summary } from './metrics.js';
import { utf16Slicer } from './slice.js';

export interface Candidate {
  /** As the client named it: inline steps or a stored pipeline's id. */
  label: unknown;
  /** Run the candidate's steps on the documents' texts: one list of chunks per text. */
  chunk(texts: string[], signal?: AbortSignal): Promise<Chunk[][]>;
}

export interface EvalServices {
  /** Unit-length embedding of each list of texts, list by list (a list is one refinery call). */
  embed?(lists: string[][], signal?: AbortSignal): Promise<number[][][]>;
  score(payload: ScorePayload, signal?: AbortSignal): Promise<KScores[]>;
  /**
   * A store retriever: write the candidate's chunks (each with its vector, one list per document)
   * to a fresh collection of the store, search it with each question's vector, and answer each
   * question's chunk indices best first (then remove what it wrote).
   */
  storeRank?(store: string, input: { lists: { document: string; chunks: Chunk[] }[]; questionVectors: number[][]; k: number }, signal?: AbortSignal): Promise<number[][]>;
  progress?(event: Progress): void;
  signal?: AbortSignal;
}

export interface Progress {
  /** Candidates done so far, and how many in all. */
  done: number;
  total: number;
  stage: 'embedded questions' | 'chunked' | 'embedded' | 'scored';
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
  const questionVectors = needsVectors ? (await services.embed!(spec.questions.map((q) => [q.question]), signal)).map((l) => l[0]!) : undefined;
  if (needsVectors) services.progress?.({ done: 0, total: candidates.length, stage: 'embedded questions' });
  const questions = spec.questions.map((q) => ({ question: q.question, references: q.references.map((r): Range => ({ doc: r.document, start: r.start_index, end: r.end_index })) }));
  const texts = spec.documents.map((d) => d.text);
  const slicers = spec.documents.map((d) => utf16Slicer(d.text, spec.unit));
  const results: CandidateResult[] = [];
  for (const [c, candidate] of candidates.entries()) {
    const started = performance.now();
    const lists = await candidate.chunk(texts, signal);
    services.progress?.({ done: c, total: candidates.length, stage: 'chunked', candidate: c });
    const chunks: ScorePayload['chunks'] = [];
    let tokens = 0;
    lists.forEach((list, d) => {
      const doc = spec.documents[d]!;
      const spans = list.map((ch) => slicers[d]!(ch.start_index, ch.end_index));
      const located = locateChunks(doc.text, list.map((ch, i) => ({ ...ch, text: spans[i]! })), spec.locate, spec.unit);
      list.forEach((ch, i) => {
        const [start, end] = located.ranges[i]!;
        chunks.push({ range: { doc: doc.id, start, end }, index: retrievable(ch, spans[i]!) });
        tokens += ch.token_count;
      });
    });
    let chunkVectors: number[][] | undefined;
    if (needsVectors) {
      let at = 0;
      const byDoc = lists.map((l) => chunks.slice(at, (at += l.length)).map((c) => c.index));
      chunkVectors = (await services.embed!(byDoc, signal)).flat();
      services.progress?.({ done: c, total: candidates.length, stage: 'embedded', candidate: c });
    }
    const store = storeOf(spec.retriever);
    const runs: { retriever: EvalRetriever; scores: KScores[] }[] = [];
    if (store !== undefined) {
      if (!services.storeRank) throw new Error('A store retriever needs a storeRank service.');
      // Each chunk carries its index in `chunks` (where it is scored), and the vector the exact-cosine figure uses.
      let at = 0;
      const indexed = lists.map((l, d) => {
        const from = at;
        at += l.length;
        return { document: spec.documents[d]!.id, chunks: l.map((ch, i) => ({ ...ch, embedding: chunkVectors![from + i]!, metadata: { ...ch.metadata, eval_index: from + i } })) };
      });
      const rankings = await services.storeRank(store, { lists: indexed, questionVectors: questionVectors!, k: Math.max(...spec.k) }, signal);
      runs.push({ retriever: spec.retriever, scores: await services.score({ retriever: 'embeddings', ks: spec.k, chunks, questions, rankings, detail: spec.detail }, signal) });
      // The exact-cosine figure beside it: what the index's approximation costs.
      runs.push({ retriever: 'embeddings', scores: await services.score({ retriever: 'embeddings', ks: spec.k, chunks, questions, chunkVectors, questionVectors, detail: spec.detail }, signal) });
    } else {
      runs.push({ retriever: spec.retriever, scores: await services.score({ retriever: spec.retriever as RetrieverName, ks: spec.k, chunks, questions, chunkVectors, questionVectors, detail: spec.detail }, signal) });
    }
    const time_ms = Math.round(performance.now() - started);
    for (const { retriever, scores } of runs) for (const s of scores) {
      const row: CandidateResult = {
        candidate: candidate.label,
        retriever,
        k: s.k,
        recall: s.recall,
        precision: s.precision,
        iou: s.iou,
        precision_omega: s.precision_omega,
        chunks: chunks.length,
        mean_tokens: chunks.length ? tokens / chunks.length : 0,
        time_ms,
      };
      if (s.questions) row.questions = s.questions;
      results.push(row);
    }
    services.progress?.({ done: c + 1, total: candidates.length, stage: 'scored', candidate: c });
  }
  return { results };
}

/**
 * What the retriever reads of a chunk: its context (text outside the span that gives it meaning, a
 * heading path or a neighbour's words) before its span text, unless a refinery has already merged
 * the context into the text. The chunk is still scored on its span alone.
 */
export function retrievable(chunk: Chunk, span: string): string {
  if (!chunk.context || chunk.text !== span) return chunk.text;
  return `${chunk.context}\n${chunk.text}`;
}
