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

/**
 * Run one batch of a job's documents through its steps, with the very executePipeline (and so
 * the worker pool and limits) a pipeline execute uses: the batch as one list, split over the pool's
 * threads when it is worth it. A batch that fails as a whole is run again one document at a time,
 * so one bad document (too long, say) fails alone, with its reason. An error that is not a
 * catalogue error (a bug, the pool closing) is thrown: the batch is not done and is retried.
 */
export async function runBatch(job: JobRun, docs: BatchDocument[], deps: ExecuteDeps, signal?: AbortSignal): Promise<ResultLine[]> {
  const pipeline: PipelineRecord = { id: job.id, name: `job ${job.id}`, description: null, steps: job.steps, created_at: '', updated_at: '' };
  if (docs.length === 0) return [];
  try {
    const lists = (await executePipeline(pipeline, docs.map((d) => d.text), job.offset_unit, deps, signal)) as Chunk[][];
    return docs.map((d, i) => ok(d, lists[i]!));
  } catch (e) {
    if (!isChunkdError(e)) throw e;
    if (docs.length === 1) return [failed(docs[0]!, e)];
  }
  const out: ResultLine[] = [];
  for (const d of docs) {
    try {
      out.push(ok(d, (await executePipeline(pipeline, [d.text], job.offset_unit, deps, signal)) [0] as Chunk[]));
    } catch (e) {
      if (!isChunkdError(e)) throw e;
      out.push(failed(d, e));
    }
  }
  return out;
}

const ok = (d: BatchDocument, chunks: Chunk[]): ResultLine => ({ index: d.index, ok: true, line: JSON.stringify({ document_id: d.id, index: d.index, chunks }) });

const failed = (d: BatchDocument, e: { code: string; detail: unknown }): ResultLine => ({
  index: d.index,
  ok: false,
  line: JSON.stringify({ document_id: d.id, index: d.index, error: { code: e.code, detail: e.detail } }),
});
