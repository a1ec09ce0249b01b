/**
 * Scoring one candidate's chunks against the questions: retrieval (BM25, embeddings or both fused)
 * over one index of every document's chunks, then the metrics per question and k. Plain data in
 * and out, so it runs in a candidate's pool task (service/evaluation/candidate.ts) as it does inline.
 */
import { fuse, type FusionRule } from '../../kernel/fusion.js';
import { Bm25Index, topK } from './bm25.js';
import { precisionOmega, scoreQuestion, summarize, type Summary } from './metrics.js';
import type { Range } from './ranges.js';

export type RetrieverName = 'bm25' | 'embeddings' | 'hybrid';

export interface ScorePayload {
  retriever: RetrieverName;
  ks: number[];
  /** Every chunk of every document, in document order: where it is scored, and what the retriever reads. */
  chunks: { range: Range; index: string }[];
  questions: { question: string; references: Range[] }[];
  /** Unit vectors, one per chunk and one per question, for `embeddings` and `hybrid`. */
  chunkVectors?: readonly ArrayLike<number>[];
  questionVectors?: number[][];
  /** How `hybrid` fuses the two lists: the rule a store's hybrid mode uses for the embedding model (kernel/fusion.ts fusionFor). */
  fusion?: FusionRule;
  /** Each question's precision Ω, when the caller has it already. */
  omega?: number[];
  detail: boolean;
}

export interface QuestionDetail {
  recall: number;
  precision: number;
  iou: number;
  precision_omega: number;
  /** The retrieved chunks, best first, where they were scored. */
  retrieved: { document: string; start_index: number; end_index: number }[];
}

export interface KScores {
  k: number;
  recall: Summary;
  precision: Summary;
  iou: Summary;
  precision_omega: Summary;
  questions?: QuestionDetail[];
}

/** Scores per k (as given), in percent. */
export function scoreCandidate(p: ScorePayload): KScores[] {
  const maxK = maxOf(p.ks);
  const rank = ranker(p);
  const omega =
    p.omega ??
    omegas(
      p.chunks.map((c) => c.range),
      p.questions,
    );
  const rankings = p.questions.map((q, i) => rank(q.question, i, maxK));
  return scoreRankings({ ks: p.ks, questions: p.questions, rankings: rankings.map((r) => r.map((c) => p.chunks[c]!.range)), omega, detail: p.detail });
}

/** The largest k: a loop, not Math.max(...ks), since the CLI's --k list has no length cap and a spread that long overflows the stack. */
export const maxOf = (ks: readonly number[]): number => ks.reduce((m, k) => Math.max(m, k), 0);

/** Each question's precision Ω over every chunk of the candidate (it does not depend on the retriever). */
export const omegas = (ranges: readonly Range[], questions: ScorePayload['questions']): number[] => questions.map((q) => precisionOmega(ranges, q.references));

/**
 * Scores per k from each question's retrieved ranges, best first (at least max k of them, or all
 * there are), and its precision Ω: the same figures whoever retrieved (this module's retrievers, or
 * a store's index, service/evaluation/store-retriever.ts).
 */
export function scoreRankings(p: { ks: number[]; questions: ScorePayload['questions']; rankings: Range[][]; omega: number[]; detail: boolean }): KScores[] {
  const { omega } = p;
  return p.ks.map((k) => {
    const per = p.questions.map((q, i) => {
      const retrieved = p.rankings[i]!.slice(0, k);
      return { ...scoreQuestion(retrieved, q.references), retrieved };
    });
    const pct = (values: number[]) => {
      const s = summarize(values);
      return { mean: 100 * s.mean, std: 100 * s.std };
    };
    const out: KScores = {
      k,
      recall: pct(per.map((s) => s.recall)),
      precision: pct(per.map((s) => s.precision)),
      iou: pct(per.map((s) => s.iou)),
      precision_omega: pct(omega),
    };
    if (p.detail) {
      out.questions = per.map((s, i) => ({
        recall: 100 * s.recall,
        precision: 100 * s.precision,
        iou: 100 * s.iou,
        precision_omega: 100 * omega[i]!,
        retrieved: s.retrieved.map((r) => ({ document: r.doc, start_index: r.start, end_index: r.end })),
      }));
    }
    return out;
  });
}

/** The retriever: the indices of the best chunks for a question, best first; equal scores keep chunk order. */
function ranker(p: ScorePayload): (question: string, i: number, k: number) => number[] {
  const bm25 = p.retriever === 'embeddings' ? undefined : new Bm25Index(p.chunks.map((c) => c.index));
  const cosine = (i: number) => {
    const q = p.questionVectors![i]!;
    return p.chunkVectors!.map((v) => dot(v, q));
  };
  if (p.retriever === 'bm25') return (question, _i, k) => bm25!.top(question, k);
  if (p.retriever === 'embeddings') return (_q, i, k) => topK(cosine(i), k);
  const rule = p.fusion;
  if (!rule) throw new Error('The hybrid retriever needs a fusion rule.');
  // As a store's hybrid mode does: each retriever's best hits, to the rule's depth or k if more (BM25:
  // the chunks that match at all; for a re-ranking rule the vector list also scores every BM25 candidate), fused.
  return (question, i, k) => {
    const bm = bm25!.scores(question);
    const cos = cosine(i);
    const depth = Math.max(rule.depth, k);
    const text = topK(bm, depth)
      .filter((c) => bm[c]! > 0)
      .map((c) => ({ id: c, score: bm[c]! }));
    const vector = topK(cos, depth).map((c) => ({ id: c, score: cos[c]! }));
    if (rule.rule === 'rerank') for (const h of text) vector.push({ id: h.id, score: cos[h.id]! });
    return fuse(text, vector, rule, k).map((h) => h.id);
  };
}

function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}
