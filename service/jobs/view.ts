import type { JobStatus, JobView } from './store.js';

/** A jobs row as both back-ends keep it. */
export interface JobRow {
  id: string;
  status: JobStatus;
  pipeline_id: string | null;
  steps: string;
  offset_unit: string;
  total: number;
  done: number;
  failed: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
}

/** A job whose every document failed has failed; one with any result is done (its failures listed). */
export const finalStatus = (row: Pick<JobRow, 'done' | 'failed' | 'total'>): JobStatus => (row.total > 0 && row.done === 0 ? 'failed' : 'done');

export function toView(row: JobRow, failureLines: string[]): JobView {
  const iso = (v: string | Date | null) => (v === null ? null : new Date(v).toISOString());
  return {
    id: row.id,
    status: row.status,
    pipeline_id: row.pipeline_id,
    documents: { total: Number(row.total), done: Number(row.done), failed: Number(row.failed) },
    failures: failureLines.map((l) => {
      const { index, document_id, error } = JSON.parse(l) as JobView['failures'][number];
      return { index, document_id, error };
    }),
    created_at: iso(row.created_at)!,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at),
  };
}
