/**
 * One candidate of an evaluation, whole: its steps chunk every document, the chunks are placed
 * and indexed, embedded when the retriever needs vectors, and scored, all in one place (one pool
 * task when the executor has workers: service/evaluation/candidate-job.ts). Only the scores leave it, never
 * the chunk graph; for a store retriever, compact rows beside them (service/evaluation/eval-rows.ts).
 */
import type { Chunk } from '../../kernel/chunk.js';
import { renameLimit } from '../../kernel/chef/errors.js';
import type { Plugin } from '../../kernel/registry.js';
import { inline, Runner, type PluginStep, type RunnerLimits } from '../../kernel/engine/index.js';
import { locateChunks, type LocateMode } from './locate.js';
import type { Range } from './ranges.js';
import { checkRowBytes, evalRows, type EvalRows } from './eval-rows.js';
import { omegas, scoreCandidate, type KScores, type RetrieverName, type ScorePayload } from './score.js';
import { utf16Slicer } from './slice.js';
import type { EvalDocument } from './spec.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { FusionRule } from '../../kernel/fusion.js';
import { indexText } from '../../kernel/index-text.js';

/** What every candidate of one evaluation is scored on (plain data: it crosses to a worker). */
export interface SharedInput {
  documents: EvalDocument[];
  unit: OffsetUnit;
  locate: LocateMode;
  retriever: RetrieverName;
  ks: number[];
  detail: boolean;
  questions: { question: string; references: Range[] }[];
  /** Unit vectors of the questions, for `embeddings` and `hybrid`. */
  questionVectors?: number[][];
  /** How `hybrid` fuses BM25 and the vectors: the embedding model's rule, as a store's hybrid mode (kernel/fusion.ts). */
  fusion?: FusionRule;
  /** A store retriever follows (`retriever` is then the exact one of its mode): hand back the rows it writes, and each question's precision Ω. */
  rows?: boolean;
}

/** A plugin step as it crosses threads: its manifest's source and its validated config. */
export interface StepSource {
  source: string;
  config: Record<string, unknown>;
}

export interface CandidatePayload {
  steps: StepSource[];
  input: SharedInput;
  /** The embeddings refinery and its config, when the retriever needs vectors. */
  embedding?: StepSource;
  /** The runner's caps on the chunks (kernel/engine/runner.ts): a candidate's chunks are held to a JSON answer's. */
  limits: RunnerLimits;
}

export interface CandidateOutcome {
  scores: KScores[];
  chunks: number;
  tokens: number;
  /** With `rows`: every chunk as a compact row, and each question's precision Ω (a fraction). */
  rows?: EvalRows;
  omega?: number[];
}

/** Embed lists of texts, list by list (a list is one refinery call), as unit vectors. */
export type Embed = (lists: string[][]) => Promise<ArrayLike<number>[][]>;

/** Run one candidate here, through a Runner of this thread: chunk, locate, embed, score. */
export async function runCandidate(p: CandidatePayload, plugin: (source: string) => Promise<Plugin>, signal?: AbortSignal): Promise<CandidateOutcome> {
  try {
    const runner = new Runner(inline, p.limits);
    const steps = await Promise.all(p.steps.map(async (s) => ({ plugin: await plugin(s.source), config: s.config })));
    const lists = await runner.chunks(
      { steps, unit: p.input.unit, returnType: 'chunks' },
      p.input.documents.map((d) => d.text),
      signal,
    );
    const embedding = p.embedding && { plugin: await plugin(p.embedding.source), config: p.embedding.config };
    const outcome = await scoreLists(lists, p.input, embedding && ((texts) => embedUnitLists(runner, embedding, texts, signal)));
    if (outcome.rows) checkRowBytes(outcome.rows, p.limits.maxOutputBytes);
    return outcome;
  } catch (e) {
    throw renameLimit(e, p.limits.chef?.names ?? {});
  }
}

/** Score a candidate's chunk lists (one per document): place each chunk, index what the retriever reads, embed when needed. */
export async function scoreLists(lists: Chunk[][], input: SharedInput, embed?: Embed): Promise<CandidateOutcome> {
  const chunks: ScorePayload['chunks'] = [];
  const own: { range: Range; own: [number, number]; text: string; context?: string }[] = [];
  let tokens = 0;
  lists.forEach((list, d) => {
    const doc = input.documents[d]!;
    const slice = utf16Slicer(doc.text, input.unit);
    const spans = list.map((ch) => slice(ch.start_index, ch.end_index));
    const located = locateChunks(
      doc.text,
      list.map((ch, i) => ({ ...ch, text: spans[i]! })),
      input.locate,
      input.unit,
    );
    list.forEach((ch, i) => {
      const [start, end] = located.ranges[i]!;
      chunks.push({ range: { doc: doc.id, start, end }, index: retrievable(ch, spans[i]!) });
      // the context the index text holds (see retrievable), so the store indexes what this evaluation does
      const context = ch.context && ch.text === spans[i] ? { context: ch.context } : {};
      if (input.rows) own.push({ range: chunks.at(-1)!.range, own: [ch.start_index, ch.end_index], text: ch.text, ...context });
      tokens += ch.token_count;
    });
  });
  let chunkVectors: ArrayLike<number>[] | undefined;
  // vectors for the retriever, or for a store retriever's rows (a store's row carries one, whatever its search mode)
  if (input.retriever !== 'bm25' || input.rows) {
    if (!embed) throw new Error('An embeddings retriever needs an embed service.');
    let at = 0;
    chunkVectors = (await embed(lists.map((l) => chunks.slice(at, (at += l.length)).map((c) => c.index)))).flat();
  }
  const omega = input.rows
    ? omegas(
        chunks.map((c) => c.range),
        input.questions,
      )
    : undefined;
  const scores = scoreCandidate({
    retriever: input.retriever,
    ks: input.ks,
    chunks,
    questions: input.questions,
    chunkVectors,
    questionVectors: input.questionVectors,
    detail: input.detail,
    ...(input.fusion ? { fusion: input.fusion } : {}),
    ...(omega ? { omega } : {}),
  });
  if (!input.rows) return { scores, chunks: chunks.length, tokens };
  const ids = new Map(input.documents.map((d, i) => [d.id, i]));
  return { scores, chunks: chunks.length, tokens, rows: evalRows(own, (id) => ids.get(id)!, chunkVectors!), omega: omega! };
}

/** Embed lists of texts with an embedding step, through the runner (placed where it puts them), as unit vectors, list by list. */
export async function embedLists(runner: Runner, step: PluginStep, lists: string[][], signal?: AbortSignal): Promise<number[][][]> {
  const vectors = await runner.embed(step, lists.flat(), signal);
  let at = 0;
  return lists.map((l) => l.map(() => unitVector(vectors[at++]!)));
}

/**
 * The chunks' vectors as embedLists gives them, each scaled to unit length in place, in the
 * runner's one Float64Array (the same arithmetic in doubles, so the same figures): 100,000 chunks
 * never take a JS array each (~1.3 KB for 100 numbers, against 0.8 KB here).
 */
export async function embedUnitLists(runner: Runner, step: PluginStep, lists: string[][], signal?: AbortSignal): Promise<Float64Array[][]> {
  const vectors = await runner.embed(step, lists.flat(), signal);
  for (const v of vectors) {
    const norm = lengthOf(v);
    if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = v[i]! / norm;
  }
  let at = 0;
  return lists.map((l) => l.map(() => vectors[at++]!));
}

export function unitVector(v: ArrayLike<number>): number[] {
  const norm = lengthOf(v);
  return Array.from(v, (x) => (norm > 0 ? x / norm : x));
}

/** A vector's Euclidean length, summed in doubles in order (both unit-length paths above divide by it, so their figures agree). */
function lengthOf(v: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  return Math.sqrt(sum);
}

/**
 * What the retriever reads of a chunk: its index text (kernel/index-text.ts), the string a store
 * indexes too: its context (text outside the span that gives it meaning, a heading line or a
 * neighbour's words) before its span text, unless a refinery has already merged the context into
 * the text. The document's name and the heading path are not added: neither held out
 * (bench/results.md "Search modes held out"). The chunk is still scored on its span alone.
 */
export function retrievable(chunk: Chunk, span: string): string {
  return indexText(chunk, span);
}
