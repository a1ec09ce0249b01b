import { isChunkdError } from '../../kernel/errors.js';
import { isInterruption, type Doc } from '../../kernel/engine/index.js';
import { checkTexts, runnerOf } from '../limits.js';
import { pipelineRecipe, writes, type ExecuteDeps, type RunPipeline } from '../pipelines/execute.js';
import { type StoresService } from '../stores/service.js';
import { asStoreWait, WriteBatch, type StoreWait } from '../stores/write-batch.js';
import { isStoreCallError } from '../stores/stores.js';
import type { PipelineRecord } from '../storage/store.js';
import type { JobRun, ResultLine } from './store.js';
import { documentMeta } from './doc-meta.js';

export interface BatchDocument {
  index: number;
  id: string;
  text: string;
  /** Its name and the user's metadata, as the job stored them (JSON), or null. */
  meta?: string | null;
  /** An uploaded file's chef and structure (JSON), as the job stored them (service/jobs/store.ts JobDocument), or null. */
  chef?: string | null;
  structure?: string | null;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** True once this process is shutting down: a failure then says nothing about the document. */
  stopping?: () => boolean;
  /** Told of each document a bug failed (for the server log; nothing internal goes on the wire). */
  onBug?: (document: BatchDocument, error: unknown) => void;
}

/**
 * Run one batch of a job's documents through its steps with the document runner
 * (kernel/engine/runner.ts) a pipeline execute uses: each document on its own, the large ones in the
 * worker pool (as many at a time as it has threads), each result serialized there and capped by
 * --max-document-output-bytes. A document that fails, fails alone with its reason: a bug is an
 * INTERNAL line, since running it again would fail again and the job would never end. Only an
 * interruption (this process stopping, the pool closing, an abort: the job cancelled) is thrown, and
 * a StoreWait (service/stores/write-batch.ts): a write step's store did not take the writes, and the
 * consumer schedules the batch again (service/jobs/store-wait.ts).
 */
export async function runBatch(job: JobRun, docs: BatchDocument[], deps: ExecuteDeps, options: RunOptions = {}): Promise<ResultLine[]> {
  const { signal } = options;
  if (docs.length === 0) return [];
  // The job runs its own copy of the steps (inline, or a pipeline's as they were at submit): no route updates them.
  const staleAdvice = 'submit the job again with steps this server accepts (POST /v1/jobs; GET /v1/plugins lists each plugin and its config)';
  const pipeline: RunPipeline = { id: job.id, name: `job ${job.id}`, description: null, steps: job.steps, created_at: '', updated_at: '', staleAdvice };
  const out: ResultLine[] = [];
  const fail = (d: BatchDocument, e: unknown) => {
    if (isChunkdError(e)) return out.push(failed(d, e));
    if (isInterruption(e, signal) || options.stopping?.()) throw e;
    options.onBug?.(d, e);
    out.push(failed(d, BUG));
  };
  // A write step's writes are held and made together once the batch has run (service/stores/write-batch.ts).
  const stores = deps.services?.stores;
  const batch = stores && writes(pipeline) ? new WriteBatch(stores) : undefined;
  const fit: BatchDocument[] = [];
  let recipe;
  try {
    const services = batch ? { ...deps.services, stores: batch.service } : deps.services;
    recipe = await pipelineRecipe(
      pipeline,
      job.offset_unit,
      'chunks',
      { ...deps, services },
      true,
      (i) => fit[i]?.id,
      (i) => documentMeta(fit[i]?.meta),
    );
  } catch (e) {
    // A write step's store that did not answer while the steps were made (its collection's model): the batch waits for it.
    if (isStoreCallError(e)) throw asStoreWait(e, e.store);
    for (const d of docs) fail(d, e); // a stale step fails every document with the same reason
    return out;
  }
  // Each document is checked as one text of a request (--max-text-chars): one too long fails alone.
  // A process step is the recipe's first step, run by the runner where it places the document.
  const inputs: Doc[] = [];
  for (const d of docs) {
    try {
      checkTexts(d.text, deps.settings);
      // An uploaded file's document runs as a run by `file` runs it: its text with the structure its chef found.
      inputs.push(d.chef && d.structure ? { text: d.text, structure: { json: new TextEncoder().encode(d.structure) }, chef: d.chef } : d.text);
      fit.push(d);
    } catch (e) {
      fail(d, e);
    }
  }
  const runner = runnerOf(deps.executor, deps.settings);
  await runner.each(
    recipe,
    inputs,
    (i, r) => {
      const d = fit[i]!;
      if ('bytes' in r) out.push(ok(d, r.bytes));
      else fail(d, 'error' in r ? r.error : r.bug);
    },
    { concurrency: Math.max(1, deps.executor.threads), signal },
  );
  if (batch) {
    // Nothing of this batch is recorded done before the store has confirmed its writes.
    if (signal?.aborted) throw signal.reason;
    const refused = await batch.flush();
    for (const [i, line] of out.entries()) {
      const e = line.ok ? refused.get(fit.find((d) => d.index === line.index)!.id) : undefined;
      if (e) out[i] = failed({ index: line.index, id: fit.find((d) => d.index === line.index)!.id, text: '' }, e);
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

/** The log line of a batch waiting for its write step's store (the reason is the store's own message, redacted: no URL, no secret). */
export const logStoreWait = (
  logger: { log(level: 'warning', msg: string, fields?: Record<string, unknown>): void },
  job: string,
  wait: StoreWait,
  pauseMs: number | undefined,
) =>
  logger.log('warning', pauseMs === undefined ? 'job batch given up: its store did not take the writes' : 'job batch waits for its store', {
    job,
    store: wait.store,
    ...(pauseMs === undefined ? {} : { retry_in_ms: pauseMs }),
    error: wait.unreachable ?? wait.reason,
  });

/** The line of a document a bug failed: what the client can do, nothing internal. */
export const BUG = {
  code: 'INTERNAL',
  detail: 'A bug in chunkd failed this document (the server log has the details): report it; the other documents are not affected.',
};

/** A document's line, its chunks written from the runner's bytes (decoded once, never parsed). */
const ok = (d: BatchDocument, chunks: Uint8Array): ResultLine => ({
  index: d.index,
  ok: true,
  line: `{"document_id":${JSON.stringify(d.id)},"index":${d.index},"chunks":${Buffer.from(chunks.buffer, chunks.byteOffset, chunks.byteLength).toString('utf8')}}`,
});

const failed = (d: BatchDocument, e: { code: string; detail: unknown }): ResultLine => ({
  index: d.index,
  ok: false,
  line: JSON.stringify({ document_id: d.id, index: d.index, error: { code: e.code, detail: e.detail } }),
});
