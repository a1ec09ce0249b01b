import type { Chunk } from '../../kernel/chunk.js';
import { isChunkdError } from '../../kernel/errors.js';
import { executePipeline, type ExecuteDeps } from '../pipelines/execute.js';
import type { PipelineRecord } from '../storage/store.js';
import type { JobRun, ResultLine } from './store.js';

export interface BatchDocument {
  index: number;
  id: string;
  text: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** True once this process is shutting down: a failure then says nothing about the document. */
  stopping?: () => boolean;
  /** Told of each document a bug failed (for the server log; nothing internal goes on the wire). */
  onBug?: (document: BatchDocument, error: unknown) => void;
}

/**
 * Run one batch of a job's documents through its steps, with the very executePipeline (and so
 * the worker pool and limits) a pipeline execute uses: the batch as one list, split over the pool's
 * threads when it is worth it. A batch that fails as a whole is run again one document at a time,
 * so one bad document (too long, say, or one that trips a plugin bug) fails alone, with its reason:
 * a bug is an INTERNAL line, since running it again would fail again and the job would never end.
 * Only an interruption (this process stopping, the pool closing, an abort) is thrown: the batch is
 * not done and is retried.
 */
export async function runBatch(job: JobRun, docs: BatchDocument[], deps: ExecuteDeps, options: RunOptions = {}): Promise<ResultLine[]> {
  const { signal } = options;
  const pipeline: PipelineRecord = { id: job.id, name: `job ${job.id}`, description: null, steps: job.steps, created_at: '', updated_at: '' };
  if (docs.length === 0) return [];
  try {
    const lists = (await executePipeline(pipeline, docs.map((d) => d.text), job.offset_unit, deps, signal)) as Chunk[][];
    return docs.map((d, i) => ok(d, lists[i]!));
  } catch (e) {
    if (isInterruption(e, options)) throw e;
  }
  const out: ResultLine[] = [];
  for (const d of docs) {
    try {
      out.push(ok(d, (await executePipeline(pipeline, [d.text], job.offset_unit, deps, signal))[0] as Chunk[]));
    } catch (e) {
      if (isChunkdError(e)) {
        out.push(failed(d, e));
        continue;
      }
      if (isInterruption(e, options)) throw e;
      options.onBug?.(d, e);
      out.push(failed(d, BUG));
    }
  }
  return out;
}

/** The line of a document a bug failed: what the client can do, nothing internal. */
export const BUG = { code: 'INTERNAL', detail: 'A bug in chunkd failed this document (the server log has the details): report it; the other documents are not affected.' };

/** A failure that is about this process (stopping, its worker pool closing, an abort), not about the document. */
function isInterruption(e: unknown, { signal, stopping }: RunOptions): boolean {
  if (isChunkdError(e)) return false;
  if (signal?.aborted || stopping?.()) return true;
  const { name, message } = (e ?? {}) as { name?: string; message?: string };
  return name === 'AbortError' || /Terminating worker thread/.test(message ?? '');
}

const ok = (d: BatchDocument, chunks: Chunk[]): ResultLine => ({ index: d.index, ok: true, line: JSON.stringify({ document_id: d.id, index: d.index, chunks }) });

const failed = (d: BatchDocument, e: { code: string; detail: unknown }): ResultLine => ({
  index: d.index,
  ok: false,
  line: JSON.stringify({ document_id: d.id, index: d.index, error: { code: e.code, detail: e.detail } }),
});
