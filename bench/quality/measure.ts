/**
 * Measure every configuration on the benchmark data: chunked once each, then scored with BM25 and
 * the built-in model, chunks placed by text and at their offsets (k = 5, one index over all
 * corpora, as reference-results.md was measured).
 */
import { join } from 'node:path';
import { discover } from '../../kernel/discovery.js';
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import { inline } from '../../kernel/engine/index.js';
import { benchRunner } from '../chunkd.js';
import { loadTokenizer } from '../../kernel/tokenizers/index.js';
import { readBenchmark } from '../../service/evaluation/benchmark-files.js';
import { scoreLists } from '../../service/evaluation/candidate.js';
import { locateChunks, type LocateMode } from '../../service/evaluation/locate.js';
import type { Summary } from '../../service/evaluation/metrics.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import type { RetrieverName } from '../../service/evaluation/score.js';
import type { EvalDocument, EvalQuestion } from '../../service/evaluation/spec.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { bindKernelHost } from '../../service/kernel-host.js';
import { resolveSettings } from '../../service/settings.js';
import type { QualityCandidate } from './candidates.js';

export const K = 5;
export const RETRIEVERS = ['bm25', 'embeddings'] as const satisfies RetrieverName[];
export const LOCATES = ['text', 'offsets'] as const satisfies LocateMode[];

export interface Scores {
  recall: Summary;
  precision: Summary;
  iou: Summary;
  precision_omega: Summary;
}

export interface QualityRow {
  name: string;
  chunks: number;
  /** Mean cl100k_base tokens of the chunk texts (the reference's measure, whatever the chunker counts in). */
  meanTokens: number;
  /** Chunks whose start the text search moves (to an earlier copy of their text). */
  moved: number;
  /** By locate mode, then retriever. */
  scores: Record<LocateMode, Record<(typeof RETRIEVERS)[number], Scores>>;
  seconds: number;
}

/** Scores one candidate on given documents and questions (one index over the documents). */
export type Measurer = (candidate: QualityCandidate, documents: EvalDocument[], questions: EvalQuestion[]) => Promise<QualityRow>;

/** The registry, the retrievers and the tokenizer, set up once for many measurements. */
export async function measurer(): Promise<Measurer> {
  const settings = resolveSettings({}, { ...process.env, CHUNKD_MAX_TEXT_CHARS: String(64 * 1024 * 1024) });
  bindKernelHost(settings);
  const registry = await discover(settings.pluginsDir);
  const deps: RuntimeDeps = { registry, executor: inline, settings };
  const model = await evalServices(deps, EMBEDDED_MODEL);
  // Chunk texts repeat across locate modes and candidates: each is embedded once.
  const vectors = new Map<string, number[]>();
  const embed = async (lists: string[][]) => {
    const todo = [...new Set(lists.flat().filter((t) => !vectors.has(t)))];
    if (todo.length) (await model.embed!([todo]))[0]!.forEach((v, i) => vectors.set(todo[i]!, v));
    return lists.map((l) => l.map((t) => vectors.get(t)!));
  };
  const cl100k = await loadTokenizer('cl100k_base');
  return async (c, documents, questions) => {
    const started = performance.now();
    const steps = await validateSteps(registry, c.steps as Step[], [c.name]);
    const { steps: resolved } = await stepsCandidate(c.name, steps, 'codepoint', deps);
    // Chunked once, here: every locate mode and retriever scores the same lists.
    const lists = await benchRunner().chunks(
      { steps: resolved, unit: 'codepoint', returnType: 'chunks' },
      documents.map((d) => d.text),
    );
    const ranges = questions.map((q) => ({
      question: q.question,
      references: q.references.map((r) => ({ doc: r.document, start: r.start_index, end: r.end_index })),
    }));
    const questionVectors = (await embed(questions.map((q) => [q.question]))).map((l) => l[0]!);
    const scores = {} as QualityRow['scores'];
    for (const locate of LOCATES) {
      scores[locate] = {} as QualityRow['scores'][LocateMode];
      for (const retriever of RETRIEVERS) {
        const input = {
          documents,
          unit: 'codepoint' as const,
          locate,
          retriever,
          ks: [K],
          detail: false,
          questions: ranges,
          ...(retriever === 'bm25' ? {} : { questionVectors }),
        };
        const [r] = (await scoreLists(lists, input, retriever === 'bm25' ? undefined : embed)).scores;
        scores[locate][retriever] = { recall: r!.recall, precision: r!.precision, iou: r!.iou, precision_omega: r!.precision_omega };
      }
    }
    const all = lists.flat();
    const moved = lists.reduce((n, l, d) => n + locateChunks(documents[d]!.text, l, 'text', 'codepoint').moved, 0);
    return {
      name: c.name,
      chunks: all.length,
      meanTokens: all.reduce((n, ch) => n + cl100k.count(ch.text), 0) / all.length,
      moved,
      scores,
      seconds: (performance.now() - started) / 1000,
    };
  };
}

export async function measure(
  dataDir: string,
  candidates: QualityCandidate[],
  log: (line: string) => void,
): Promise<{ rows: QualityRow[]; questions: number; documents: string[] }> {
  const { documents, questions } = readBenchmark(join(dataDir, 'corpora'), join(dataDir, 'questions.csv'));
  const one = await measurer();
  const rows: QualityRow[] = [];
  for (const c of candidates) {
    const row = await one(c, documents, questions);
    rows.push(row);
    log(
      `  ${c.name}: ${row.chunks} chunks, BM25 recall ${row.scores.text.bm25.recall.mean.toFixed(1)} IoU ${row.scores.text.bm25.iou.mean.toFixed(2)} (${row.seconds.toFixed(1)} s)`,
    );
  }
  return { rows, questions: questions.length, documents: documents.map((d) => d.id) };
}
