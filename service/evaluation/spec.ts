/**
 * An evaluation's input once read (from an HTTP body or from the benchmark's files), and the checks
 * every input gets: references inside known documents, k ≥ 1, and the work budget.
 */
import { tooLarge, type Setting } from '../../kernel/caps.js';
import { ChunkdError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import { codePointCount } from '../../kernel/chef/document.js';
import type { LocateMode } from './locate.js';
import type { RetrieverName } from './score.js';
import { settingOf, settingText } from '../settings.js';

export interface EvalDocument {
  id: string;
  text: string;
}

export interface EvalReference {
  document: string;
  start_index: number;
  end_index: number;
}

export interface EvalQuestion {
  question: string;
  references: EvalReference[];
}

export interface EvalSpec {
  documents: EvalDocument[];
  questions: EvalQuestion[];
  /** `store:NAME`: through that store connection's index, the exact-cosine figure beside it. */
  retriever: EvalRetriever;
  /** The embedding model of `embeddings`, `hybrid` and a store retriever. */
  embeddingModel: string;
  k: number[];
  locate: LocateMode;
  unit: OffsetUnit;
  detail: boolean;
}

/** An evaluation's retriever: one of service/evaluation/score.ts's, or a store connection's index. */
export type EvalRetriever = RetrieverName | `store:${string}`;

/**
 * A text's length in an offset unit, counted natively (this runs on the event loop for every
 * document of a request: a JavaScript loop over megabytes of code points held it for tens of ms).
 */
export function lengthIn(text: string, unit: OffsetUnit): number {
  if (unit === 'utf16') return text.length;
  if (unit === 'utf8') return Buffer.byteLength(text, 'utf8');
  return codePointCount(text);
}

/**
 * Every problem of the input at once, each naming where it is (`loc` under `at`, e.g. body): an
 * unknown or repeated document id, a reference outside its document or empty, a question without
 * references, a k below 1.
 */
export function checkSpec(spec: EvalSpec, at: (string | number)[] = ['body']): void {
  const issues: Issue[] = [];
  const lengths = new Map<string, number>();
  spec.documents.forEach((d, i) => {
    if (lengths.has(d.id))
      issues.push({ loc: [...at, 'documents', i, 'id'], msg: `Document id '${d.id}' is used twice: give each document its own id.`, type: 'value_error' });
    lengths.set(d.id, lengthIn(d.text, spec.unit));
  });
  const known = () =>
    [...lengths.keys()]
      .slice(0, 10)
      .map((k) => `'${k}'`)
      .join(', ');
  spec.questions.forEach((q, i) => {
    const where = `Question ${i} (${JSON.stringify(q.question.length > 60 ? `${q.question.slice(0, 57)}…` : q.question)})`;
    if (q.references.length === 0)
      issues.push({
        loc: [...at, 'questions', i, 'references'],
        msg: `${where} has no references: give it at least one span of a document.`,
        type: 'value_error',
      });
    q.references.forEach((r, j) => {
      const loc = [...at, 'questions', i, 'references', j];
      const length = lengths.get(r.document);
      if (length === undefined) {
        issues.push({
          loc: [...loc, 'document'],
          msg: `${where} names document '${r.document}', which the request does not have; its documents are ${known()}.`,
          type: 'value_error',
        });
      } else if (!(r.start_index >= 0 && r.start_index < r.end_index && r.end_index <= length)) {
        issues.push({
          loc,
          msg: `${where}: reference [${r.start_index}, ${r.end_index}) is not a non-empty span inside document '${r.document}', which is ${length} ${spec.unit === 'utf8' ? 'bytes' : 'characters'} long (offset_unit ${spec.unit}).`,
          type: 'value_error',
        });
      }
    });
  });
  spec.k.forEach((k, i) => {
    if (!Number.isInteger(k) || k < 1)
      issues.push({
        loc: [...at, 'k', i],
        msg: `k must be a whole number of at least 1 (got ${k}): it is how many chunks each question retrieves.`,
        type: 'greater_than_equal',
      });
  });
  if (spec.k.length === 0) issues.push({ loc: [...at, 'k'], msg: 'Give at least one k (chunks retrieved per question), e.g. [5].', type: 'too_short' });
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
}

/**
 * Evaluation is bounded work: documents × candidates × questions against `limit` (each candidate
 * chunks every document, and every question is scored against every candidate's chunks).
 */
export function checkBudget(documents: number, candidates: number, questions: number, limit: number, setting = settingText('maxEvalWork')): void {
  const work = documents * candidates * questions;
  if (work > limit) {
    throw new ChunkdError(
      'TOO_LARGE',
      `The evaluation is ${documents.toLocaleString('en')} documents × ${candidates.toLocaleString('en')} candidates × ${questions.toLocaleString('en')} questions = ${work.toLocaleString('en')}; the limit is ${limit.toLocaleString('en')}. Send fewer, or raise ${setting}.`,
    );
  }
}

/** The caps on what an evaluation retrieves and writes (server settings). */
export interface RetrievalCaps {
  maxEvalRetrieved: number;
  maxOutputBytes: number;
}

const RETRIEVED_SETTING: Setting = settingOf('maxEvalRetrieved');
const OUTPUT: Setting = settingOf('maxOutputBytes');
/** The least JSON of one retrieved chunk in `detail` (`{"document":"","start_index":0,"end_index":0}` and a comma), before its document id. */
const RETRIEVED_BYTES = 46;
/** The least JSON of one question's entry in `detail`, before its retrieved chunks. */
const QUESTION_BYTES = 70;

/**
 * What an evaluation retrieves, checked before any chunking: every question retrieves, for each k,
 * at most k chunks of each candidate, and at most as many as the documents can give (a chunk holds
 * at least one character). Over --max-eval-retrieved is a 413; with `detail`, every retrieved chunk is
 * written out too, and an answer that could not fit --max-output-bytes is a 413 now, not after the work.
 */
export function checkRetrieval(spec: Pick<EvalSpec, 'documents' | 'questions' | 'k' | 'detail' | 'retriever'>, candidates: number, caps: RetrievalCaps): void {
  const chunks = spec.documents.reduce((n, d) => n + d.text.length, 0);
  const perQuestion = spec.k.reduce((n, k) => n + Math.min(k, chunks), 0);
  // A store retriever retrieves twice: through the store, and by exact cosine beside it.
  const twice = spec.retriever.startsWith('store:');
  const retrieved = spec.questions.length * candidates * perQuestion * (twice ? 2 : 1);
  const shown = (n: number) => n.toLocaleString('en');
  if (retrieved > caps.maxEvalRetrieved) {
    throw tooLarge(
      `The evaluation would retrieve up to ${shown(spec.questions.length)} questions × ${shown(candidates)} candidates × ${shown(perQuestion)} chunks (the sum of k, each at most the ${shown(chunks)} characters of the documents)${twice ? ' × 2 (the store, and exact cosine beside it)' : ''} = ${shown(retrieved)} chunks`,
      caps.maxEvalRetrieved,
      RETRIEVED_SETTING,
      'Send fewer questions, candidates or smaller k',
    );
  }
  if (!spec.detail) return;
  const id = spec.documents.reduce((n, d) => Math.min(n, Buffer.byteLength(JSON.stringify(d.id)) - 2), Infinity);
  const bytes = retrieved * (RETRIEVED_BYTES + id) + spec.questions.length * candidates * spec.k.length * (twice ? 2 : 1) * QUESTION_BYTES;
  if (bytes > caps.maxOutputBytes) {
    throw tooLarge(
      `With detail, the answer would take at least ${shown(bytes)} bytes of JSON (each of up to ${shown(retrieved)} retrieved chunks listed)`,
      caps.maxOutputBytes,
      OUTPUT,
      'Send detail: false, fewer questions or smaller k',
    );
  }
}
