/**
 * Search modes measured: for each corpus (its own index, its own questions) and pipeline, the
 * chunks are indexed as a store would index them (kernel/index-text.ts, in several variants), and
 * each question keeps its best `DEPTH` chunks by BM25 (with their cosines, for re-ranking) and by
 * exact cosine with the built-in model. The text, vector and hybrid modes (kernel/fusion.ts, any
 * rule) are then scored from those lists in memory, so rules and weights can be chosen by leaving
 * one corpus out (bench/quality/modes-fit.ts) without chunking or embedding again.
 *
 * Lists are cached in bench/.cache/quality-modes/ (v8-serialised), keyed by the corpus text and
 * questions, the pipeline's steps, its plugins' source, the variant, the source of the index text,
 * the BM25 index and the heading scan, and LISTS_VERSION.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deserialize, serialize } from 'node:v8';
import { discover } from '../../kernel/discovery.js';
import { EMBEDDED_MODEL } from '../../kernel/fields.js';
import { fuse, type FusionRule, type Hit } from '../../kernel/fusion.js';
import { indexText, type IndexTextOptions } from '../../kernel/index-text.js';
import { ROOT } from '../../kernel/paths.js';
import { inline } from '../../kernel/engine/index.js';
import { benchRunner } from '../chunkd.js';
import { Bm25Index, topK } from '../../service/evaluation/bm25.js';
import { locateChunks, type LocateMode } from '../../service/evaluation/locate.js';
import { scoreQuestion } from '../../service/evaluation/metrics.js';
import type { Range } from '../../service/evaluation/ranges.js';
import { evalServices, stepsCandidate, type RuntimeDeps } from '../../service/evaluation/runtime.js';
import { validateSteps, type Step } from '../../service/pipelines/steps.js';
import { resolveSettings } from '../../service/settings.js';
import type { QualityCandidate } from './candidates.js';
import type { Chunk } from '../../kernel/chunk.js';
import type { EvalDocument, EvalQuestion } from '../../service/evaluation/spec.js';
import type { Corpus } from './folds.js';
import { corpusHeadings, pathAt } from './headings.js';

export const K = 5;
/** Hits kept per retriever and question: what a store would be asked for before fusing. */
export const DEPTH = 100;

/** The index-text variants compared: the chunk's context and text (today), with the document's name, with its heading path, with both. */
export const VARIANTS = {
  span: {},
  name: { name: true },
  headings: { headings: true },
  'name+headings': { name: true, headings: true },
} as const satisfies Record<string, Omit<IndexTextOptions, 'document'>>;
export type Variant = keyof typeof VARIANTS;

/** One question's lists, best first. */
export interface QuestionLists {
  /** BM25: chunks with a score above 0, at most DEPTH; their BM25 scores and cosines. */
  textIds: Int32Array;
  textScores: Float64Array;
  textCos: Float64Array;
  /** Exact cosine: the DEPTH best chunks and their cosines. */
  vectorIds: Int32Array;
  vectorScores: Float64Array;
  /** The hybrid retriever before this change: Σ 1 / (60 + rank) over both full rankings, its K best. */
  rrf60: Int32Array;
  /** BM25 as chunkd eval's bm25 ranks (zero scores too, in chunk order), its K best. */
  bm25: Int32Array;
}

export interface Collected {
  index: string;
  pipeline: string;
  variant: Variant;
  chunks: number;
  /** Where each chunk is scored. */
  ranges: Range[];
  references: Range[][];
  /** Per question, its corpus. */
  groups: string[];
  questions: QuestionLists[];
}

export type Mode = 'text' | 'vector' | 'hybrid-before' | FusionRule;

export interface Figure {
  recall: number;
  precision: number;
  iou: number;
}

const CACHE = join(ROOT, 'bench', '.cache', 'quality-modes');

/** The version of how lists are made here (collect, questionLists): raise it when that changes. */
const LISTS_VERSION = 1;

/** The hash of what the lists depend on besides the corpus and the pipeline. */
function codeHash(): string {
  const h = createHash('sha256').update(String(LISTS_VERSION));
  for (const f of ['kernel/index-text.ts', 'service/evaluation/bm25.ts', 'bench/quality/headings.ts']) h.update(readFileSync(join(ROOT, f)));
  return h.digest('hex').slice(0, 12);
}

function pluginHash(c: QualityCandidate): string {
  const h = createHash('sha256');
  for (const step of c.steps) {
    const folder = join(ROOT, 'plugins', step.chunker ?? step.refinery ?? '');
    if (!existsSync(folder)) continue;
    for (const f of readdirSync(folder)
      .filter((n) => n.endsWith('.ts') && !n.endsWith('.test.ts'))
      .sort())
      h.update(readFileSync(join(folder, f)));
  }
  return h.digest('hex').slice(0, 12);
}

/**
 * An index to measure: one or more documents in one index, and questions, each in a group (its
 * corpus) so that figures can be read per corpus from an index of several.
 */
export interface Index {
  id: string;
  documents: EvalDocument[];
  questions: EvalQuestion[];
  /** Per question, its corpus. */
  groups: string[];
}

/** Each corpus as its own index (the held-out protocol's setting). */
export const ownIndexes = (corpora: Corpus[]): Index[] =>
  corpora.map((c) => ({ id: c.id, documents: [c.document], questions: c.questions, groups: c.questions.map(() => c.id) }));

/** Several corpora in one index (as the benchmark's reference rows over three corpora were measured). */
export const sharedIndex = (id: string, corpora: Corpus[]): Index => ({
  id,
  documents: corpora.map((c) => c.document),
  questions: corpora.flatMap((c) => c.questions),
  groups: corpora.flatMap((c) => c.questions.map(() => c.id)),
});

/** Chunks, index texts, BM25 and cosine lists for every index × pipeline × variant (from the cache where it has them). */
export async function collect(
  indexes: Index[],
  pipelines: QualityCandidate[],
  variants: Variant[],
  log: (l: string) => void,
  locate: LocateMode = 'text',
): Promise<Collected[]> {
  mkdirSync(CACHE, { recursive: true });
  const code = codeHash();
  let setup: Awaited<ReturnType<typeof setUp>> | undefined;
  const out: Collected[] = [];
  for (const index of indexes) {
    const h = createHash('sha256');
    for (const d of index.documents) h.update(d.id).update(d.text);
    const indexHash = h.update(JSON.stringify(index.questions)).update(JSON.stringify(index.groups)).digest('hex').slice(0, 12);
    let questionVectors: number[][] | undefined;
    for (const p of pipelines) {
      const key = (v: Variant) =>
        createHash('sha256')
          .update(`${index.id} ${indexHash} ${pluginHash(p)} ${JSON.stringify(p.steps)} ${v} ${locate} ${code} ${DEPTH}`)
          .digest('hex')
          .slice(0, 24);
      const file = (v: Variant) => join(CACHE, `${key(v)}.bin`);
      const todo = variants.filter((v) => !existsSync(file(v)));
      if (todo.length) {
        const started = performance.now();
        setup ??= await setUp();
        questionVectors ??= (await setup.embed(index.questions.map((q) => [q.question]))).map((l) => l[0]!);
        const steps = await validateSteps(setup.registry, p.steps as Step[], [p.name]);
        const { steps: resolved } = await stepsCandidate(p.name, steps, 'codepoint', setup.deps);
        const lists = await benchRunner().chunks(
          { steps: resolved, unit: 'codepoint', returnType: 'chunks' },
          index.documents.map((d) => d.text),
        );
        // every chunk of every document, in document order: where it is scored, and what it is (its span, its heading path)
        const chunks: { chunk: Chunk; span: string; document: string }[] = [];
        const ranges: Range[] = [];
        index.documents.forEach((doc, d) => {
          const list = lists[d]!;
          const cps = [...doc.text];
          const spans = list.map((ch) => cps.slice(ch.start_index, ch.end_index).join(''));
          const located = locateChunks(
            doc.text,
            list.map((ch, i) => ({ ...ch, text: spans[i]! })),
            locate,
            'codepoint',
          );
          const headings = corpusHeadings(doc.text);
          list.forEach((ch, i) => {
            const metadata = { ...ch.metadata, ...(headings.length ? { headings: pathAt(headings, ch.start_index) } : {}) };
            chunks.push({ chunk: { ...ch, metadata }, span: spans[i]!, document: doc.id });
            ranges.push({ doc: doc.id, start: located.ranges[i]![0], end: located.ranges[i]![1] });
          });
        });
        const references = index.questions.map((q) => q.references.map((r) => ({ doc: r.document, start: r.start_index, end: r.end_index })));
        for (const v of todo) {
          const texts = chunks.map((c) => indexText(c.chunk, c.span, { document: c.document, ...VARIANTS[v] }));
          const bm25 = new Bm25Index(texts);
          const vectors = (await setup.embed([texts]))[0]!;
          const questions = index.questions.map((q, qi) =>
            questionLists(
              bm25.scores(q.question),
              vectors.map((x) => dot(x, questionVectors![qi]!)),
            ),
          );
          const c: Collected = { index: index.id, pipeline: p.name, variant: v, chunks: chunks.length, ranges, references, groups: index.groups, questions };
          writeFileSync(file(v), serialize(c));
        }
        log(`  ${index.id} · ${p.name}: ${chunks.length} chunks, ${todo.join(', ')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      }
      // the lists depend on the steps, not the name: a preset and a grid pipeline with the same steps share them
      for (const v of variants) out.push({ ...(deserialize(readFileSync(file(v))) as Collected), pipeline: p.name });
    }
  }
  return out;
}

async function setUp() {
  const settings = resolveSettings({}, { ...process.env, CHUNKD_MAX_TEXT_CHARS: String(64 * 1024 * 1024) });
  const registry = await discover(settings.pluginsDir);
  const deps: RuntimeDeps = { registry, executor: inline, settings };
  const model = await evalServices(deps, EMBEDDED_MODEL);
  const vectors = new Map<string, number[]>();
  const embed = async (lists: string[][]) => {
    const todo = [...new Set(lists.flat().filter((t) => !vectors.has(t)))];
    if (todo.length) (await model.embed!([todo]))[0]!.forEach((v, i) => vectors.set(todo[i]!, v));
    const got = lists.map((l) => l.map((t) => vectors.get(t)!));
    if (vectors.size > 50_000) vectors.clear();
    return got;
  };
  return { registry, deps, embed };
}

function questionLists(bm: Float64Array, cos: number[]): QuestionLists {
  const t = topK(bm, DEPTH).filter((i) => bm[i]! > 0);
  const v = topK(cos, DEPTH);
  // the hybrid retriever as it was: every chunk ranked in both lists, 1 / (60 + rank)
  const fused = new Float64Array(bm.length);
  for (const scores of [bm, cos]) topK(scores, scores.length).forEach((c, r) => (fused[c]! += 1 / (60 + r + 1)));
  return {
    textIds: Int32Array.from(t),
    textScores: Float64Array.from(t, (i) => bm[i]!),
    textCos: Float64Array.from(t, (i) => cos[i]!),
    vectorIds: Int32Array.from(v),
    vectorScores: Float64Array.from(v, (i) => cos[i]!),
    rrf60: Int32Array.from(topK(fused, K)),
    bm25: Int32Array.from(topK(bm, K)),
  };
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The K chunks a mode retrieves for one question. */
export function retrieve(q: QuestionLists, mode: Mode, k = K): number[] {
  if (mode === 'text') return [...q.bm25.subarray(0, k)];
  if (mode === 'vector') return [...q.vectorIds.subarray(0, k)];
  if (mode === 'hybrid-before') return [...q.rrf60.subarray(0, k)];
  const text: Hit<number>[] = Array.from(q.textIds, (id, i) => ({ id, score: q.textScores[i]! }));
  const vector: Hit<number>[] = Array.from(q.vectorIds, (id, i) => ({ id, score: q.vectorScores[i]! }));
  // rerank: the text candidates' cosines too, as a store reads them from the candidates' stored vectors
  if (mode.rule === 'rerank') q.textIds.forEach((id, i) => vector.push({ id, score: q.textCos[i]! }));
  return fuse(text, vector, mode, k).map((h) => h.id);
}

/** Mean recall, precision and IoU (in %) of a mode over an index's questions (of one group, when named). */
export function figure(c: Collected, mode: Mode, group?: string, k = K): Figure {
  let recall = 0;
  let precision = 0;
  let iou = 0;
  let n = 0;
  c.questions.forEach((q, i) => {
    if (group !== undefined && c.groups[i] !== group) return;
    n++;
    const s = scoreQuestion(
      retrieve(q, mode, k).map((id) => c.ranges[id]!),
      c.references[i]!,
    );
    recall += s.recall;
    precision += s.precision;
    iou += s.iou;
  });
  n ||= 1;
  return { recall: (100 * recall) / n, precision: (100 * precision) / n, iou: (100 * iou) / n };
}

/**
 * A SYNTHETIC vector retriever, for a sanity check of the fitting only (no claim about any real
 * model rests on it): each chunk scores `strength` × the share of the question's reference
 * characters it holds, plus standard normal noise (seeded), so its errors are independent of
 * BM25's. The text lists stay; the vector lists, and the cosines of the text candidates, are replaced.
 */
export function synthetic(c: Collected, strength: number, seed: number): Collected {
  const random = gaussian(seed);
  const questions = c.questions.map((q, qi) => {
    const refs = c.references[qi]!;
    const total = refs.reduce((n, r) => n + (r.end - r.start), 0) || 1;
    const scores = c.ranges.map((r) => {
      let held = 0;
      for (const ref of refs) if (ref.doc === r.doc) held += Math.max(0, Math.min(r.end, ref.end) - Math.max(r.start, ref.start));
      return (strength * held) / total + random();
    });
    const v = topK(scores, DEPTH);
    return {
      ...q,
      vectorIds: Int32Array.from(v),
      vectorScores: Float64Array.from(v, (i) => scores[i]!),
      textCos: Float64Array.from(q.textIds, (i) => scores[i]!),
    };
  });
  return { ...c, questions };
}

/** Standard normal numbers from a seeded generator (mulberry32, Box–Muller). */
function gaussian(seed: number): () => number {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}
