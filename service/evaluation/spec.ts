/**
 * An evaluation's input once read (from an HTTP body or from the benchmark's files), and the checks
 * every input gets: references inside known documents, k ≥ 1, and the work budget.
 */
import { ChunkdError, type Issue } from '../../kernel/errors.js';
import type { OffsetUnit } from '../../kernel/offsets.js';
import type { LocateMode } from './locate.js';
import type { RetrieverName } from './score.js';

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

export type EvalRetriever = RetrieverName | `store:${string}`;

/** The store connection a `store:NAME` retriever names, else undefined. */
export const storeOf = (retriever: EvalRetriever): string | undefined => (retriever.startsWith('store:') ? retriever.slice('store:'.length) : undefined);

export interface EvalSpec {
  documents: EvalDocument[];
  questions: EvalQuestion[];
  /** `store:NAME`: retrieved through that store connection's index, the exact-cosine figure reported beside it. */
  retriever: EvalRetriever;
  /** The embedding model of `embeddings`, `hybrid` and a store. */
  embeddingModel: string;
  k: number[];
  locate: LocateMode;
  unit: OffsetUnit;
  detail: boolean;
}

/** A text's length in an offset unit. */
export function lengthIn(text: string, unit: OffsetUnit): number {
  if (unit === 'utf16') return text.length;
  if (unit === 'utf8') return Buffer.byteLength(text, 'utf8');
  let n = 0;
  for (const _ of text) n++;
  return n;
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
    if (lengths.has(d.id)) issues.push({ loc: [...at, 'documents', i, 'id'], msg: `Document id '${d.id}' is used twice: give each document its own id.`, type: 'value_error' });
    lengths.set(d.id, lengthIn(d.text, spec.unit));
  });
  const known = () => [...lengths.keys()].slice(0, 10).map((k) => `'${k}'`).join(', ');
  spec.questions.forEach((q, i) => {
    const where = `Question ${i} (${JSON.stringify(q.question.length > 60 ? `${q.question.slice(0, 57)}…` : q.question)})`;
    if (q.references.length === 0) issues.push({ loc: [...at, 'questions', i, 'references'], msg: `${where} has no references: give it at least one span of a document.`, type: 'value_error' });
    q.references.forEach((r, j) => {
      const loc = [...at, 'questions', i, 'references', j];
      const length = lengths.get(r.document);
      if (length === undefined) {
        issues.push({ loc: [...loc, 'document'], msg: `${where} names document '${r.document}', which the request does not have; its documents are ${known()}.`, type: 'value_error' });
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
    if (!Number.isInteger(k) || k < 1) issues.push({ loc: [...at, 'k', i], msg: `k must be a whole number of at least 1 (got ${k}): it is how many chunks each question retrieves.`, type: 'greater_than_equal' });
  });
  if (spec.k.length === 0) issues.push({ loc: [...at, 'k'], msg: 'Give at least one k (chunks retrieved per question), e.g. [5].', type: 'too_short' });
  if (issues.length) throw new ChunkdError('VALIDATION', issues);
}

/**
 * Evaluation is bounded work: documents × candidates × questions against `limit` (each candidate
 * chunks every document, and every question is scored against every candidate's chunks).
 */
export function checkBudget(documents: number, candidates: number, questions: number, limit: number, setting = '--max-eval-work (CHUNKD_MAX_EVAL_WORK)'): void {
  const work = documents * candidates * questions;
  if (work > limit) {
    throw new ChunkdError(
      'TOO_LARGE',
      `The evaluation is ${documents.toLocaleString('en')} documents × ${candidates.toLocaleString('en')} candidates × ${questions.toLocaleString('en')} questions = ${work.toLocaleString('en')}; the limit is ${limit.toLocaleString('en')}. Send fewer, or raise ${setting}.`,
    );
  }
}
