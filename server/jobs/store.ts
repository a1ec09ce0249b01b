import type { OffsetUnit } from '../../kernel/offsets.js';
import type { Step } from '../pipelines/steps.js';

export type JobStatus = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

/** One input document: its client id (or its index as a string) and its text. */
export interface JobDocument {
  id: string;
  text: string;
}

/** A job as submitted: the steps are a snapshot (a stored pipeline's, or inline), validated; later edits of the pipeline do not reach it. */
export interface NewJob {
  id: string;
  pipeline_id: string | null;
  steps: Step[];
  offset_unit: OffsetUnit;
  documents: JobDocument[];
  created_at: string;
}

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
 * through server/jobs/run.ts. Every result is stored once per (job, index), whoever ran it.
 */
export interface JobStore {
  /** Store the job and its documents, and queue its batches: one transaction. */
  submit(job: NewJob): Promise<JobView>;
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
  /** Resolves when the jobs database (and, on PostgreSQL, the queue) answers: the readiness check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
