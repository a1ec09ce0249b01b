import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Step } from '../pipelines/steps.js';
import { flagOf, settingPairText } from '../settings.js';

/** 'receiving': the body is still arriving (never shown: such a job is not found). */
export type JobStatus = 'receiving' | 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One input document: its client id (or its index as a string) and its text. */
export interface JobDocument {
  id: string;
  text: string;
  /** Its name and the user's metadata, as JSON (service/jobs/doc-meta.ts), for a write step's rows; absent for none. */
  meta?: string;
  /**
   * An uploaded file's (`{"file": "file_…"}`): the chef that read it at upload, and the structure
   * it found (its JSON, UTF-16 spans of `text`), so a process step of that chef answers it as the
   * upload read it (headings, pages, tables), as a run by `file` does.
   */
  chef?: string;
  structure?: string;
}

/** What runs a job: the steps are a snapshot (a stored pipeline's, or inline), validated; later edits of the pipeline do not reach it. */
export interface JobMeta {
  pipeline_id: string | null;
  steps: Step[];
  offset_unit: OffsetUnit;
}

/**
 * A job being received: its documents are stored batch by batch as the body arrives (each batch
 * reserved against --max-jobs-bytes first), invisible to every reader and consumer until commit().
 * abort() deletes what was stored; a receiver that died mid-way is swept (the job's status is
 * 'receiving' until committed).
 */
export interface JobIntake {
  /** The next documents, in order (their indexes follow the previous batch's). Throws JobQuotaError over the quota. */
  add(documents: JobDocument[]): Promise<void>;
  /** The job is complete and valid: queue it. */
  commit(meta: JobMeta): Promise<JobView>;
  abort(): Promise<void>;
}

/** The jobs are at their storage quota (--max-jobs-bytes): the bytes in use and the quota. */
export class JobQuotaError extends Error {
  constructor(
    readonly used: number,
    readonly wanted: number,
    readonly quota: number,
  ) {
    super('jobs storage quota reached');
  }
}

/** Bytes a document takes in the store: its text and id, in UTF-8. */
export const documentBytes = (d: JobDocument): number =>
  Buffer.byteLength(d.text) + Buffer.byteLength(d.id) + [d.meta, d.chef, d.structure].reduce((n, s) => n + (s ? Buffer.byteLength(s) : 0), 0);

/** The line of a document that failed for `error`. */
export const errorLine = (index: number, documentId: string, error: { code: string; detail: unknown }): ResultLine => ({
  index,
  ok: false,
  line: JSON.stringify({ document_id: documentId, index, error }),
});

/** Limits the stores enforce as they store results. */
export interface StoreLimits {
  /** --max-jobs-bytes: documents plus results of every job. */
  maxJobsBytes: number;
  /** --max-document-output-bytes: one document's result line. */
  maxDocumentOutputBytes: number;
}

/** A result line over --max-document-output-bytes is stored as this error instead. */
export const resultTooLarge = (bytes: number, max: number) => ({
  code: 'TOO_LARGE',
  detail: `This document's result is ${bytes} bytes of JSON, more than the limit of ${max} (${settingPairText('maxDocumentOutputBytes')}): use larger chunks (chunk_size), split the document, or raise the limit.`,
});

/**
 * The lines as stored: one over `max` bytes becomes its document's TOO_LARGE error line. The
 * document's id comes from the store (`idOf`) or, for a document no longer waiting (cancelled), from
 * the line itself, which begins with it.
 */
export function capped(lines: ResultLine[], max: number, idOf: (index: number) => string | undefined): ResultLine[] {
  return lines.map((l) => {
    const bytes = Buffer.byteLength(l.line);
    if (bytes <= max) return l;
    return errorLine(l.index, idOf(l.index) ?? documentIdOf(l.line), resultTooLarge(bytes, max));
  });
}

const LEADING_ID = /^\{"document_id":("(?:[^"\\]|\\.)*")/;
function documentIdOf(line: string): string {
  const m = LEADING_ID.exec(line.slice(0, 8192));
  return m ? (JSON.parse(m[1]!) as string) : '';
}

/** The lines of a job stopped because its results would pass --max-jobs-bytes: each document without a result gets this error. */
export const quotaReached = (quota: number) => ({
  code: 'INSUFFICIENT_STORAGE',
  detail: `The job was stopped: its results would pass the jobs storage quota of ${quota} bytes (${settingPairText('maxJobsBytes')}). Wait for finished jobs to expire (${flagOf('jobResultTtlS')}), use larger chunks, or raise the quota, then submit the documents without a result again.`,
});

/**
 * Runs of one batch before it is given up: its documents still without a result get this error,
 * so the job finishes instead of retrying a batch that fails the same way every time.
 */
export const RETRY_LIMIT = 5;
export const gaveUp = (runs: number) => ({
  code: 'INTERNAL',
  detail: `This document failed on each of ${runs} runs (the server log has the reason, e.g. a worker that ran out of memory): it was given up so the job could finish. Split it into smaller documents and submit them again.`,
});

/** The most failures a status answer lists (the count of failures is always exact). */
export const FAILURES_MAX = 20;

/** What GET /v1/jobs/:id answers. */
export interface JobView {
  id: string;
  status: JobStatus;
  pipeline_id: string | null;
  documents: { total: number; done: number; failed: number };
  failures: { index: number; document_id: string; error: { code: string; detail: unknown } }[];
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
}

/** A job as a consumer needs it to run a batch. */
export interface JobRun {
  id: string;
  status: JobStatus;
  steps: Step[];
  offset_unit: OffsetUnit;
}

/** One document's result: the NDJSON line GET …/results sends for it, stored once per (job, index). */
export interface ResultLine {
  index: number;
  ok: boolean;
  line: string;
}

/**
 * Jobs on one back-end (SQLite in-process: sqlite.ts; PostgreSQL + pg-boss: postgres.ts). The
 * route only uses this; each back-end also consumes its own queue once started, running batches
 * through service/jobs/run.ts. Every result is stored once per (job, index), whoever ran it.
 */
export interface JobStore {
  /** Begin receiving a job: nothing is visible until the intake commits. */
  receive(id: string, createdAt: string): Promise<JobIntake>;
  /** undefined: no such job, or it has expired. */
  get(id: string): Promise<JobView | undefined>;
  /**
   * The lines of the contiguous finished prefix after index `after` (-1: from the start), in
   * index order, at most `limit` lines and about `maxBytes` of them (always at least one line, so
   * one huge line still goes); a gap (a document not finished yet) ends the page.
   */
  results(id: string, after: number, limit: number, maxBytes: number): Promise<ResultLine[]>;
  /** Cancel a queued or running job (documents not started are dropped); a finished job is answered as it is. */
  cancel(id: string): Promise<JobView | undefined>;
  /** Bytes held by every job (documents waiting plus results kept): what --max-jobs-bytes bounds. */
  usage(): Promise<number>;
  /** Resolves when the jobs database (and, on PostgreSQL, the queue) answers: the readiness check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
